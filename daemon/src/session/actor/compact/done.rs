//! The end of a summary request: the next piece's request, the piece cut in two when the
//! model found it too long, the compaction stored, or nothing changed.

use super::{Compaction, Then, Why};
use crate::exchange::Outcome;
use crate::model::{ModelInfo, MoveKind, NodeRecord, Part, PartContent, Role, Usage};
use crate::resilience::FailureClass;
use crate::session::SessionError;
use crate::session::actor::commit::{HeadMove, RedoEffect};
use crate::session::actor::turn::model_info;
use crate::session::actor::turn::{Phase, SendOutcome};
use crate::session::actor::{Actor, Reply};
use crate::session::outcome::{Cancelled, Compacted, SessionEvent};
use crate::session::pieces::halve;
use crate::time::now_ms;

/// What one summary request came to.
enum Step {
    /// A summary of the piece, and what it cost.
    Summary(String, ModelInfo),
    /// The model found the request too long.
    TooLong(String),
    /// Anything else that ends the compaction: why.
    Failed(String),
}

/// Two requests' costs as one: tokens, attempts and time added up.
fn summed(spent: Option<ModelInfo>, now: ModelInfo) -> ModelInfo {
    let Some(before) = spent else {
        return now;
    };
    let usage = match (before.usage, now.usage) {
        (Some(a), Some(b)) => Some(Usage {
            prompt_tokens: a.prompt_tokens.saturating_add(b.prompt_tokens),
            answer_tokens: a.answer_tokens.saturating_add(b.answer_tokens),
            thought_tokens: a.thought_tokens.saturating_add(b.thought_tokens),
            total_tokens: a.total_tokens.saturating_add(b.total_tokens),
            cached_tokens: a.cached_tokens.saturating_add(b.cached_tokens),
        }),
        (one, other) => one.or(other),
    };
    ModelInfo {
        usage,
        attempts: before.attempts + now.attempts,
        latency_ms: before.latency_ms + now.latency_ms,
        ..now
    }
}

fn step_of(outcome: Result<SendOutcome, tokio::task::JoinError>, latency_ms: u64) -> Step {
    match outcome {
        Ok(SendOutcome {
            outcome: Outcome::Completed { done, attempts },
            asked,
        }) => {
            let info = model_info(&asked, &done, attempts, latency_ms, false);
            let text = crate::model::visible_text(&done.parts);
            if text.trim().is_empty() {
                let why = info.finish_reason.as_deref().unwrap_or("no reason");
                Step::Failed(format!(
                    "{} wrote no summary (it stopped with {why})",
                    asked.reference
                ))
            } else {
                Step::Summary(text, info)
            }
        }
        Ok(SendOutcome {
            outcome: Outcome::Failed { failure, .. },
            ..
        }) if failure.class == FailureClass::ContextTooLong => Step::TooLong(failure.message),
        Ok(SendOutcome {
            outcome: Outcome::Failed { failure, .. },
            ..
        }) => Step::Failed(failure.message),
        Ok(SendOutcome {
            outcome: Outcome::Interrupted(_),
            ..
        }) => Step::Failed("it was cancelled".to_string()),
        Err(join) => Step::Failed(format!("the summary's task failed ({join})")),
    }
}

impl Actor {
    /// What a summary request produced: the next piece, the compaction stored, or nothing
    /// changed. Clients that cancelled hear that nothing was kept.
    pub(in crate::session::actor) async fn finish_compaction(
        &mut self,
        mut compaction: Compaction,
        outcome: Result<SendOutcome, tokio::task::JoinError>,
        latency_ms: u64,
        cancellers: Vec<Reply<Cancelled>>,
    ) {
        let step = step_of(outcome, latency_ms);
        let cancelled = !cancellers.is_empty();
        for canceller in cancellers {
            let _ = canceller.send(Ok(Cancelled {
                session: self.record.id,
                turn: self.tree.head(),
                kept: None,
            }));
        }
        if cancelled {
            return self
                .compaction_failed(compaction, "it was cancelled".into())
                .await;
        }
        match step {
            Step::Summary(text, info) => {
                let spent = summed(compaction.spent.take(), info);
                compaction.pieces.pop_front();
                if compaction.pieces.is_empty() {
                    return self.store_compaction(compaction, text, spent).await;
                }
                compaction.spent = Some(spent);
                compaction.carried = Some(text);
                self.spawn_step(compaction).await;
            }
            Step::TooLong(why) => match compaction.pieces.front().and_then(|p| halve(p)) {
                Some((first, second)) => {
                    tracing::info!(session = %self.record.id, "a summary request was too long; summarising it in two pieces");
                    compaction.pieces.pop_front();
                    compaction.pieces.push_front(second);
                    compaction.pieces.push_front(first);
                    self.spawn_step(compaction).await;
                }
                None => self.compaction_failed(compaction, why).await,
            },
            Step::Failed(why) => self.compaction_failed(compaction, why).await,
        }
    }

    /// Stores the summary and moves the head to it (ending *needs recovery* in the same
    /// commit when the recovery menu asked), then tells whoever waits.
    async fn store_compaction(
        &mut self,
        compaction: Compaction,
        summary: String,
        model: ModelInfo,
    ) {
        self.life.enter(self.record.id, Phase::Storing);
        let Compaction {
            plan,
            instructions,
            why,
            from,
            before,
            then,
            ..
        } = compaction;
        let node = NodeRecord {
            id: self.tree.len() + 1,
            parent: from,
            role: Role::Summary,
            parts: vec![
                Part::text(summary.clone()),
                Part::from(PartContent::Compaction {
                    resumes_at: plan.resumes_at,
                    instructions,
                }),
            ],
            created_at_ms: now_ms(),
            model: Some(model.clone()),
        };
        let id = node.id;
        let to_summary = HeadMove {
            kind: MoveKind::Compact,
            to: id,
            redoes: None,
            redo: RedoEffect::Clear,
        };
        let recovering = why == Why::Recovery;
        let stored = self
            .commit_with(Some(node), Some(to_summary), |record| {
                if recovering {
                    record.needs_recovery = None;
                }
            })
            .await;
        if let Err(error) = stored {
            return self
                .give_up(then, error.error("the compaction's summary"))
                .await;
        }
        let live = self.ctx.live.get();
        let compacted = Compacted {
            session: self.record.id,
            node: id,
            from,
            covers: plan.covers,
            resumes_at: plan.resumes_at,
            text: summary,
            model,
            before,
            after: self.gauge_at(id, &live).await,
        };
        tracing::info!(session = %self.record.id, summary = id, covered = compacted.covers.len(), "compacted");
        let event = SessionEvent::Compacted(Box::new(compacted.clone()));
        match then {
            Then::Reply(reply) => {
                self.let_go().await;
                self.life.end(self.record.id, "compacted");
                self.announce(event);
                let _ = reply.send(Ok(compacted));
            }
            Then::Answer { done, events } => {
                events.send(event);
                self.answer_unchecked(id, events, done).await;
            }
        }
    }

    /// What a compaction that did not complete means: nothing changed.
    pub(super) async fn compaction_failed(&mut self, compaction: Compaction, why: String) {
        tracing::warn!(session = %self.record.id, "compaction failed: {why}");
        self.life.end(self.record.id, "not compacted");
        let message = format!(
            "the compaction did not happen: {why}. Nothing changed: the session is as it was"
        );
        let error = match compaction.why {
            Why::Asked => SessionError::Upstream(message),
            Why::Auto | Why::Recovery => SessionError::Upstream(format!(
                "{message}, and node {} still waits for its answer (send again, or `omnictl \
                 compact` with a smaller `--keep`)",
                compaction.from
            )),
        };
        self.announce(SessionEvent::Failed(error.clone()));
        self.give_up(compaction.then, error).await;
    }
}
