//! The end of a send: what the attempts produced is stored (an answer, an interrupted
//! answer, or the failure and what it means for the session) before the requester hears.

use std::sync::atomic::Ordering;

use super::Actor;
use super::attempts::SendOutcome;
use super::commit::{HeadMove, RedoEffect};
use crate::exchange::Outcome;
use crate::model::{ModelInfo, MoveKind, NodeRecord, Role};
use crate::resilience::GiveUp;
use crate::services::Endpoint;
use crate::session::SessionError;
use crate::session::answer::AnswerBuilder;
use crate::session::outcome::Answer;
use crate::session::tree::NodeId;
use crate::text::{count, then};
use crate::time::now_ms;

/// How a model node was produced: by whom, how, and at what cost.
fn model_info(
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

impl Actor {
    /// Stores what the attempts produced and answers the requester.
    pub(super) async fn finish_send(
        &mut self,
        outcome: Result<SendOutcome, tokio::task::JoinError>,
    ) {
        let Some(mut send) = self.inflight.take() else {
            return;
        };
        let mut cancellers = std::mem::take(&mut send.cancellers);
        self.ctx
            .counters
            .sends_in_flight
            .fetch_sub(1, Ordering::Relaxed);
        let latency_ms = send.started.elapsed().as_millis() as u64;
        let SendOutcome { outcome, asked } = match outcome {
            Ok(outcome) => outcome,
            Err(join) => {
                let error = SessionError::Internal(format!(
                    "the answer task failed ({join}); your turn is saved as node {}",
                    send.turn
                ));
                let result = Err(error);
                self.too_late_to_cancel(cancellers, &result);
                return self.finish(send.done, result);
            }
        };
        let result = match outcome {
            Outcome::Completed {
                done: answer,
                attempts,
            } => {
                let info = model_info(&asked, &answer, attempts, latency_ms, false);
                self.store_answer(send.turn, answer, info).await
            }
            Outcome::Failed {
                failure,
                attempts,
                gave_up,
                error_id,
            } => {
                let why = match gave_up {
                    GiveUp::NotRetryable => String::new(),
                    GiveUp::BudgetSpent => {
                        format!(" (gave up after {})", count(attempts, "attempt"))
                    }
                    GiveUp::DeadlineWouldPass => format!(
                        " (gave up after {}: the next could not finish within the {:.1} s \
                         request deadline)",
                        count(attempts, "attempt"),
                        send.live.config.retry.deadline.as_secs_f64()
                    ),
                };
                let failure_text = if why.is_empty() {
                    failure.message.clone()
                } else {
                    format!("{}{why}", failure.message.trim_end_matches('.'))
                };
                if failure.class.needs_recovery() {
                    // Retrying cannot fix a request the API rejects: stop and ask.
                    Err(self.enter_recovery(&failure_text, error_id, None).await)
                } else if attempts == 0 {
                    // Nothing reached the API (the circuit breaker is open): this says
                    // nothing about the session, so it does not count toward suspending it.
                    Err(SessionError::Upstream(then(
                        &failure_text,
                        &format!(
                            "Nothing was sent, so this does not count toward suspending \
                                 the session. Your prompt is saved as node {} and stays in the \
                                 context: send again later",
                            send.turn
                        ),
                    )))
                } else {
                    let saved = format!(
                        "Your prompt is saved as node {} and stays in the context: send again \
                         to continue (both prompts are sent), or `omnictl back` to drop it",
                        send.turn
                    );
                    Err(self.record_failure(&failure_text, &saved).await)
                }
            }
            Outcome::Interrupted(answer) => {
                let info = model_info(&asked, &answer, 1, latency_ms, true);
                let cancellers = std::mem::take(&mut cancellers);
                Err(self
                    .store_interrupted(send.turn, answer, info, cancellers)
                    .await)
            }
        };
        self.too_late_to_cancel(cancellers, &result);
        self.held.trim();
        self.finish(send.done, result);
    }

    /// Stores a model node under the turn. A complete answer becomes the head (and resets
    /// the failure count); an interrupted one stays beside it, out of the context.
    pub(super) async fn store_answer(
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
        Ok(Answer {
            session: self.record.id,
            prompt_node: turn,
            node: id,
            text,
            model,
            pending_calls,
        })
    }
}
