//! Answering a turn: a prompt, a set of function results, or `recover --retry` all end
//! here. The context is validated (preflight), the attempts run in their own task, and what
//! they produce is stored before the requester hears back.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::model::{ModelInfo, Part, Role};
use crate::session::SessionError;
use crate::session::outcome::{Answer, Cancelled, SessionEvent};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::attempts::{AnswerJob, SendOutcome, answer_with_retries};
use super::{Actor, Events, HeadMove, RedoEffect, Reply};
use crate::diag::{Cause, Report};
use crate::exchange::Outcome;
use crate::model::{MoveKind, NodeRecord};
use crate::provider::{contents, render};
use crate::resilience::{FailureClass, GiveUp};
use crate::services::Live;
use crate::session::answer::AnswerBuilder;
use crate::session::tree::NodeId;
use crate::session::validate::validate;
use crate::text::{count, then};
use crate::time::now_ms;

/// Delivers the outcome of answering a turn to whoever asked, in their reply's type.
pub(super) type Done = Box<dyn FnOnce(Result<Answer, SessionError>) + Send>;

/// A [`Done`] that answers `reply`, mapping the answer with `wrap`.
pub(super) fn done_with<T: Send + 'static>(reply: Reply<T>, wrap: fn(Answer) -> T) -> Done {
    Box::new(move |result| {
        let _ = reply.send(result.map(wrap));
    })
}

pub(super) struct InFlight {
    turn: NodeId,
    task: JoinHandle<SendOutcome>,
    done: Done,
    started: Instant,
    /// The settings this send started with (a reload does not change them).
    live: Arc<Live>,
    /// Stops the attempts: a client's cancel, or shutdown (its parent).
    pub(super) cancel: CancellationToken,
    /// Clients that asked to cancel, answered once the outcome is stored.
    pub(super) cancellers: Vec<Reply<Cancelled>>,
}

/// Resolves when the in-flight send (if any) ends; never, if there is none.
pub(super) async fn next_outcome(
    inflight: &mut Option<InFlight>,
) -> Result<SendOutcome, tokio::task::JoinError> {
    match inflight {
        Some(send) => (&mut send.task).await,
        None => std::future::pending().await,
    }
}

fn model_info(
    live: &Live,
    answer: &AnswerBuilder,
    attempts: u32,
    latency_ms: u64,
    interrupted: bool,
) -> ModelInfo {
    ModelInfo {
        model: live.config.provider.model.clone(),
        model_version: answer.model_version.clone(),
        finish_reason: answer.finish_reason.clone(),
        usage: answer.usage,
        attempts,
        latency_ms,
        interrupted,
    }
}

impl Actor {
    /// `send`: stores the prompt durably, then answers it.
    pub(super) async fn begin_send(
        &mut self,
        prompt: String,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<Answer>,
    ) {
        let done = done_with(reply, |answer| answer);
        match self.store_prompt(prompt).await {
            Ok(turn) => {
                let events = self.events(Some(events));
                events.send(SessionEvent::PromptStored {
                    session: self.record.id,
                    node: turn,
                });
                self.start_answering(turn, events, done).await;
            }
            Err(error) => done(Err(error)),
        }
    }

    /// `retry`: answers the turn at the head again, exactly as stored (a send that failed
    /// left its prompt there).
    pub(super) async fn begin_retry(
        &mut self,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply: Reply<Answer>,
    ) {
        let done = done_with(reply, |answer| answer);
        match self.pending_turn() {
            Ok(turn) => {
                let events = self.events(Some(events));
                self.start_answering(turn, events, done).await;
            }
            Err(error) => done(Err(error)),
        }
    }

    /// The turn at the head that waits for an answer: a prompt, or function results.
    fn pending_turn(&self) -> Result<NodeId, SessionError> {
        self.refuse_if_busy()?;
        self.refuse_if_needs_recovery()?;
        self.refuse_if_suspended()?;
        let head = self.tree.head();
        match self.tree.role(head) {
            Some(Role::User | Role::Tool) => Ok(head),
            Some(Role::Model) => Err(SessionError::wrong_state(format!(
                "nothing to retry: the head, node {head}, is the model's answer; send a new \
                 prompt (or undo to ask again)"
            ))),
            None => Err(SessionError::wrong_state(
                "nothing to retry: the session has no turns at its head",
            )),
        }
    }

    async fn store_prompt(&mut self, prompt: String) -> Result<NodeId, SessionError> {
        self.refuse_if_busy()?;
        self.refuse_if_needs_recovery()?;
        self.refuse_if_suspended()?;
        self.refuse_if_calls_pending()?;
        if prompt.trim().is_empty() {
            return Err(SessionError::invalid(
                "the prompt is empty; nothing was sent",
            ));
        }
        let node = NodeRecord {
            id: self.tree.len() + 1,
            parent: self.tree.head(),
            role: Role::User,
            parts: vec![Part::text(prompt)],
            created_at_ms: now_ms(),
            model: None,
        };
        let turn = node.id;
        let to_head = HeadMove {
            kind: MoveKind::Prompt,
            to: turn,
            redoes: None,
            redo: RedoEffect::Clear,
        };
        self.commit(Some(node), Some(to_head))
            .await
            .map_err(|e| e.error("the prompt"))?;
        Ok(turn)
    }

    /// Answers the turn at the head: validates the context, then runs the attempts in their
    /// own task. A violation never reaches the API: it is recorded and the session needs
    /// recovery.
    pub(super) async fn start_answering(&mut self, turn: NodeId, events: Events, done: Done) {
        let context = match self
            .tree
            .path_to(turn)
            .into_iter()
            .map(|id| self.ctx.store.node(&self.record.id, id))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(context) => context,
            Err(error) => return self.finish(done, Err(error.into())),
        };
        let live = self.ctx.live.get();
        let contents = contents(&context);
        let body = render(
            &contents,
            self.record.tools_json.as_deref(),
            &live.config.provider.request,
        );
        if let Err(violation) = validate(&contents) {
            // Deep rollback drops the round that holds the earliest offending node.
            let rollback_to = violation
                .nodes
                .iter()
                .min()
                .and_then(|&first| self.tree.round_start(first).ok());
            let before = match rollback_to {
                Some(0) => " (`recover --deep` goes back to the start)".to_string(),
                Some(node) => format!(" (`recover --deep` goes back to node {node})"),
                None => String::new(),
            };
            let report = Report {
                session: Some(self.record.id),
                node: turn,
                attempt: 0,
                max_attempts: live.config.retry.max_attempts,
                cause: Cause::Preflight,
                message: format!("preflight validation refused the request: {violation}{before}"),
                response: None,
                request_url: live.provider.url().to_string(),
                request_body: body,
                timeline: Vec::new(),
            };
            let reason = report.message.clone();
            tracing::warn!(session = %self.record.id, turn, "{reason}");
            let error_id = self.ctx.diag.record(report, &live.diag).await;
            let error = self.enter_recovery(&reason, error_id, rollback_to).await;
            return self.finish(done, Err(error));
        }
        let cancel = self.ctx.shutdown.child_token();
        let job = AnswerJob {
            live: live.clone(),
            diag: self.ctx.diag.clone(),
            session: self.record.id,
            turn,
            body,
            events,
            cancel: cancel.clone(),
        };
        self.ctx
            .counters
            .sends_in_flight
            .fetch_add(1, Ordering::Relaxed);
        let task = self.ctx.tracker.spawn(answer_with_retries(job));
        self.inflight = Some(InFlight {
            turn,
            task,
            done,
            started: Instant::now(),
            live,
            cancel,
            cancellers: Vec::new(),
        });
    }

    /// Tells the session's watchers how a turn ended, then the requester.
    pub(super) fn finish(&self, done: Done, result: Result<Answer, SessionError>) {
        self.announce(match &result {
            Ok(answer) => SessionEvent::Answered(answer.clone()),
            Err(error) => SessionEvent::Failed(error.clone()),
        });
        done(result);
    }

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
        let result = match outcome {
            Ok(Outcome::Completed {
                done: answer,
                attempts,
            }) => {
                let info = model_info(&send.live, &answer, attempts, latency_ms, false);
                self.store_answer(send.turn, answer, info).await
            }
            Ok(Outcome::Failed {
                failure,
                attempts,
                gave_up,
                error_id,
            }) => {
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
                if let FailureClass::BadRequest { .. } = failure.class {
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
            Ok(Outcome::Interrupted(answer)) => {
                let info = model_info(&send.live, &answer, 1, latency_ms, true);
                let cancellers = std::mem::take(&mut cancellers);
                Err(self
                    .store_interrupted(send.turn, answer, info, cancellers)
                    .await)
            }
            Err(join) => Err(SessionError::Internal(format!(
                "the answer task failed ({join}); your turn is saved as node {}",
                send.turn
            ))),
        };
        self.too_late_to_cancel(cancellers, &result);
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
