//! The send path: store the prompt, run the attempts in their own task, store the outcome.

use std::sync::atomic::Ordering;
use std::time::Instant;

use omni_proto::{Answer, ErrorKind, ErrorReply, Event, ModelInfo, Part, Role};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::attempts::{AnswerJob, SendOutcome, answer_with_retries};
use super::{Actor, HeadMove, RedoEffect, Reply};
use crate::errors::{reply, store_error};
use crate::provider::build_body;
use crate::resilience::GiveUp;
use crate::session::answer::AnswerBuilder;
use crate::session::record::{MoveKind, NodeRecord};
use crate::session::tree::NodeId;
use crate::time::now_ms;

pub(super) struct InFlight {
    prompt: NodeId,
    task: JoinHandle<SendOutcome>,
    reply: Reply<Answer>,
    started: Instant,
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

impl Actor {
    /// Starts a send; if it cannot start, the client hears why at once.
    pub(super) async fn begin_send(
        &mut self,
        prompt: String,
        events: mpsc::UnboundedSender<Event>,
        reply: Reply<Answer>,
    ) {
        match self.start_send(prompt, events).await {
            Ok((prompt, task)) => {
                self.inflight = Some(InFlight {
                    prompt,
                    task,
                    reply,
                    started: Instant::now(),
                });
            }
            Err(error) => {
                let _ = reply.send(Err(error));
            }
        }
    }

    /// Stores the prompt durably, then starts the attempts in their own task.
    async fn start_send(
        &mut self,
        prompt: String,
        events: mpsc::UnboundedSender<Event>,
    ) -> Result<(NodeId, JoinHandle<SendOutcome>), ErrorReply> {
        self.refuse_if_busy()?;
        self.refuse_if_suspended()?;
        if prompt.trim().is_empty() {
            return Err(reply(
                ErrorKind::InvalidRequest,
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
        let prompt_node = node.id;
        let to_head = HeadMove {
            kind: MoveKind::Prompt,
            to: prompt_node,
            redoes: None,
            redo: RedoEffect::Clear,
        };
        self.commit(Some(node), Some(to_head)).await?;
        let _ = events.send(Event::PromptStored {
            session: self.record.id.to_string(),
            node: prompt_node,
        });

        let context = self
            .tree
            .path_to(prompt_node)
            .into_iter()
            .map(|id| self.ctx.store.node(&self.record.id, id))
            .collect::<Result<Vec<_>, _>>()
            .map_err(store_error)?;
        let job = AnswerJob {
            provider: self.ctx.provider.clone(),
            breaker: self.ctx.breaker.clone(),
            policy: self.ctx.retry.clone(),
            body: build_body(&context, &self.ctx.request_options),
            events,
            cancel: self.ctx.shutdown.clone(),
        };
        self.ctx.sends_in_flight.fetch_add(1, Ordering::Relaxed);
        let task = self.ctx.tracker.spawn(answer_with_retries(job));
        Ok((prompt_node, task))
    }

    /// Stores what the attempts produced and answers the client.
    pub(super) async fn finish_send(
        &mut self,
        outcome: Result<SendOutcome, tokio::task::JoinError>,
    ) {
        let Some(send) = self.inflight.take() else {
            return;
        };
        self.ctx.sends_in_flight.fetch_sub(1, Ordering::Relaxed);
        let latency_ms = send.started.elapsed().as_millis() as u64;
        let result = match outcome {
            Ok(SendOutcome::Completed { answer, attempts }) => {
                let info = self.model_info(&answer, attempts, latency_ms, false);
                self.store_answer(send.prompt, answer, info).await
            }
            Ok(SendOutcome::Failed {
                failure,
                attempts,
                gave_up,
            }) => {
                let why = match gave_up {
                    GiveUp::NotRetryable => String::new(),
                    GiveUp::BudgetSpent => format!(" (gave up after {attempts} attempts)"),
                    GiveUp::DeadlineWouldPass => format!(
                        " (gave up after {attempts} attempts: the next could not finish within \
                         the {:.1} s request deadline)",
                        self.ctx.retry.deadline.as_secs_f64()
                    ),
                };
                let saved = format!(
                    "Your prompt is saved as node {} and stays in the context: send again to \
                     continue (both prompts are sent), or `omnictl back` to drop it",
                    send.prompt
                );
                Err(self
                    .record_failure(&format!("{failure}{why}"), &saved)
                    .await)
            }
            Ok(SendOutcome::Interrupted { answer }) => {
                let info = self.model_info(&answer, 1, latency_ms, true);
                Err(self.store_interrupted(send.prompt, answer, info).await)
            }
            Err(join) => Err(reply(
                ErrorKind::Internal,
                format!(
                    "the answer task failed ({join}); your prompt is saved as node {}",
                    send.prompt
                ),
            )),
        };
        let _ = send.reply.send(result);
    }

    fn model_info(
        &self,
        answer: &AnswerBuilder,
        attempts: u32,
        latency_ms: u64,
        interrupted: bool,
    ) -> ModelInfo {
        ModelInfo {
            model: self.ctx.model.clone(),
            model_version: answer.model_version.clone(),
            finish_reason: answer.finish_reason.clone(),
            usage: answer.usage,
            attempts,
            latency_ms,
            interrupted,
        }
    }

    /// Stores a model node under the prompt. A complete answer becomes the head (and resets
    /// the failure count); an interrupted one stays beside it, out of the context.
    async fn store_answer(
        &mut self,
        prompt: NodeId,
        answer: AnswerBuilder,
        model: ModelInfo,
    ) -> Result<Answer, ErrorReply> {
        let interrupted = model.interrupted;
        let node = NodeRecord {
            id: self.tree.len() + 1,
            parent: prompt,
            role: Role::Model,
            parts: answer.parts,
            created_at_ms: now_ms(),
            model: Some(model.clone()),
        };
        let (id, text) = (node.id, node.text());
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
        .await?;
        Ok(Answer {
            session: self.record.id.to_string(),
            prompt_node: prompt,
            node: id,
            text,
            model,
        })
    }

    /// A shutdown cut the stream: whatever arrived is kept as an *interrupted* node beside
    /// the prompt, off the path to the head, so it is visible but never sent to the model.
    async fn store_interrupted(
        &mut self,
        prompt: NodeId,
        answer: AnswerBuilder,
        info: ModelInfo,
    ) -> ErrorReply {
        let kept = if answer.is_empty() {
            "nothing had arrived yet".to_string()
        } else {
            match self.store_answer(prompt, answer, info).await {
                Ok(stored) => format!(
                    "the partial answer is kept as node {} (interrupted, not in the context)",
                    stored.node
                ),
                Err(error) => format!("the partial answer could not be kept: {error}"),
            }
        };
        reply(
            ErrorKind::ShuttingDown,
            format!(
                "omnid is shutting down and interrupted the answer; {kept}. Your prompt is \
                 saved as node {prompt}"
            ),
        )
    }
}
