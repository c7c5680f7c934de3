//! The end of a send: what the attempts produced is stored (an answer, an interrupted
//! answer, or the failure and what it means for the session) before the requester hears.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::attempts::SendOutcome;
use super::{Phase, Stage};
use crate::exchange::Outcome;
use crate::model::{ModelInfo, MoveKind, NodeRecord, Role};
use crate::resilience::{Failure, GiveUp};
use crate::services::Endpoint;
use crate::session::SessionError;
use crate::session::actor::Actor;
use crate::session::actor::commit::{HeadMove, RedoEffect};
use crate::session::answer::AnswerBuilder;
use crate::session::outcome::Answer;
use crate::session::tree::NodeId;
use crate::text::{count, then};
use crate::time::now_ms;

/// How a model node was produced: by whom, how, and at what cost.
pub(in crate::session::actor) fn model_info(
    asked: &Endpoint,
    answer: &AnswerBuilder,
    attempts: u32,
    latency_ms: u64,
    interrupted: bool,
) -> ModelInfo {
    ModelInfo {
        provider: asked.provider.clone(),
        model: asked.model.clone(),
        model_version: answer.model_version.clone(),
        finish_reason: answer.finish_reason.clone(),
        usage: answer.usage,
        attempts,
        latency_ms,
        interrupted,
    }
}

/// Where an answer's attempts ended.
struct Ended {
    turn: NodeId,
    latency_ms: u64,
    deadline: Duration,
}

/// Why the attempts stopped, as the end of the failure's message ("" when the failure
/// itself says it: it cannot be retried).
fn gave_up_because(gave_up: GiveUp, attempts: u32, deadline: Duration) -> String {
    match gave_up {
        GiveUp::NotRetryable => String::new(),
        GiveUp::BudgetSpent => format!(" (gave up after {})", count(attempts, "attempt")),
        GiveUp::DeadlineWouldPass => format!(
            " (gave up after {}: the next could not finish within the {:.1} s request \
             deadline)",
            count(attempts, "attempt"),
            deadline.as_secs_f64()
        ),
        GiveUp::ProbeFailed => format!(
            " (gave up after {}: the circuit breaker's probe failed too)",
            count(attempts, "attempt")
        ),
    }
}

impl Actor {
    /// Stores what the attempts produced and tells whoever waits: an answer's requester,
    /// or a compaction's.
    pub(in crate::session::actor) async fn finish_send(
        &mut self,
        outcome: Result<SendOutcome, tokio::task::JoinError>,
    ) {
        let Some(mut send) = self.inflight.take() else {
            return;
        };
        let cancellers = std::mem::take(&mut send.cancellers);
        self.ctx
            .counters
            .sends_in_flight
            .fetch_sub(1, Ordering::Relaxed);
        let latency_ms = send.started.elapsed().as_millis() as u64;
        match send.stage {
            Stage::Answering(done) => {
                self.life.enter(self.record.id, Phase::Storing);
                let ended = Ended {
                    turn: send.turn,
                    latency_ms,
                    deadline: send.live.config.retry.deadline,
                };
                let result = self.store_outcome(ended, outcome, cancellers).await;
                self.held.trim();
                self.finish(done, result).await;
            }
            Stage::Compacting(compaction) => {
                self.finish_compaction(*compaction, outcome, latency_ms, cancellers)
                    .await;
            }
        }
    }

    /// What an answer's attempts produced, stored.
    async fn store_outcome(
        &mut self,
        Ended {
            turn,
            latency_ms,
            deadline,
        }: Ended,
        outcome: Result<SendOutcome, tokio::task::JoinError>,
        mut cancellers: Vec<crate::session::actor::Reply<crate::session::outcome::Cancelled>>,
    ) -> Result<Answer, SessionError> {
        let result = match outcome {
            Ok(SendOutcome { outcome, asked }) => match outcome {
                Outcome::Completed { done, attempts } => {
                    let info = model_info(&asked, &done, attempts, latency_ms, false);
                    self.store_answer(turn, done, info).await
                }
                Outcome::Failed {
                    failure,
                    attempts,
                    gave_up,
                    error_id,
                } => {
                    let why = gave_up_because(gave_up, attempts, deadline);
                    Err(self
                        .send_failed(turn, &failure, attempts, &why, error_id)
                        .await)
                }
                Outcome::Interrupted(answer) => {
                    let info = model_info(&asked, &answer, 1, latency_ms, true);
                    let cancellers = std::mem::take(&mut cancellers);
                    Err(self.store_interrupted(turn, answer, info, cancellers).await)
                }
            },
            Err(join) => Err(SessionError::Internal(format!(
                "the answer task failed ({join}); your turn is saved as node {}",
                turn
            ))),
        };
        self.too_late_to_cancel(cancellers, &result);
        result
    }

    /// What a failed send means for the session: needs recovery (the API rejected the
    /// request), nothing (nothing reached the API), or one more failure in a row.
    async fn send_failed(
        &mut self,
        turn: NodeId,
        failure: &Failure,
        attempts: u32,
        why: &str,
        error_id: Option<String>,
    ) -> SessionError {
        let failure_text = if why.is_empty() {
            failure.message.clone()
        } else {
            format!("{}{why}", failure.message.trim_end_matches('.'))
        };
        if failure.class.needs_recovery() {
            // Retrying cannot fix a request the API rejects: stop and ask.
            return self.enter_recovery(&failure_text, error_id, None).await;
        }
        if attempts == 0 {
            // Nothing reached the API (the circuit breaker is open): this says nothing
            // about the session, so it does not count toward suspending it.
            return SessionError::Upstream(then(
                &failure_text,
                &format!(
                    "Nothing was sent, so this does not count toward suspending the session. \
                     Your prompt is saved as node {turn} and stays in the context: send again \
                     later"
                ),
            ));
        }
        let saved = format!(
            "Your prompt is saved as node {turn} and stays in the context: send again to \
             continue (both prompts are sent; `omnictl send --replace` sends only the new \
             one), or `omnictl back` to drop it"
        );
        self.record_failure(&failure_text, &saved).await
    }

    /// Stores a model node under the turn. A complete answer becomes the head (and resets
    /// the failure count); an interrupted one stays beside it, out of the context.
    pub(in crate::session::actor) async fn store_answer(
        &mut self,
        turn: NodeId,
        answer: AnswerBuilder,
        model: ModelInfo,
    ) -> Result<Answer, SessionError> {
        let interrupted = model.interrupted;
        let node = NodeRecord {
            id: self.tree.len() + 1,
            parent: turn,
            role: Role::Model,
            parts: answer.parts,
            created_at_ms: now_ms(),
            model: Some(model.clone()),
        };
        let (id, text) = (node.id, node.text());
        let pending_calls = crate::session::calls::calls_of(&node)
            .into_iter()
            .map(|call| call.pending(false))
            .collect();
        let to_head = HeadMove {
            kind: MoveKind::Answer,
            to: id,
            redoes: None,
            redo: RedoEffect::Keep,
        };
        self.commit_with(Some(node), (!interrupted).then_some(to_head), |record| {
            if !interrupted {
                record.consecutive_failures = 0;
            }
        })
        .await
        .map_err(|e| {
            SessionError::Storage(then(
                &e.error("the answer").to_string(),
                &format!(
                    "Your prompt is saved as node {turn} but not answered: send again to have \
                     it answered (it is sent with the new prompt), or `omnictl back` to drop it"
                ),
            ))
        })?;
        let live = self.ctx.live.get();
        let context = self.gauge_at(id, &live).await;
        Ok(Answer {
            session: self.record.id,
            prompt_node: turn,
            prompts: self.tree.prompts_ending_at(turn),
            node: id,
            text,
            model,
            pending_calls,
            session_usage: self.record.usage.clone(),
            context,
        })
    }
}
