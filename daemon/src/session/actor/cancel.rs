//! Stopping an answer before it is complete: a client's cancel, or shutdown. Whatever
//! arrived is kept as an *interrupted* node beside the turn, off the path to the head, so
//! it is visible in the history but never sent to the model; the head stays on the turn.

use super::{Actor, ActorHandle, Command, Reply, Run};
use crate::model::ModelInfo;
use crate::session::SessionError;
use crate::session::answer::AnswerBuilder;
use crate::session::outcome::{Answer, Cancelled};
use crate::session::tree::NodeId;

impl Actor {
    /// `cancel`: stops the attempts at once; `reply` is answered once the partial answer is
    /// stored. With nothing in flight there is nothing to cancel.
    pub(super) fn cancel(&mut self, reply: Reply<Cancelled>) {
        match &mut self.inflight {
            Some(send) => {
                send.cancel.cancel();
                send.cancellers.push(reply);
            }
            None => {
                let _ = reply.send(Err(SessionError::wrong_state(format!(
                    "session {} is not answering anything; there is nothing to cancel",
                    self.record.id
                ))));
            }
        }
    }

    /// Keeps what arrived before the stream was cut, and says so: to the clients that
    /// cancelled, and (as the returned error) to the one whose turn it was.
    pub(super) async fn store_interrupted(
        &mut self,
        turn: NodeId,
        answer: AnswerBuilder,
        info: ModelInfo,
        cancellers: Vec<Reply<Cancelled>>,
    ) -> SessionError {
        let (kept, what) = if answer.is_empty() {
            (
                Ok(None),
                "nothing of the answer had arrived yet".to_string(),
            )
        } else {
            match self.store_answer(turn, answer, info).await {
                Ok(stored) => (
                    Ok(Some(stored.node)),
                    format!(
                        "the partial answer is kept as node {} (interrupted, not in the context)",
                        stored.node
                    ),
                ),
                Err(error) => (
                    Err(error.clone()),
                    format!("the partial answer could not be kept: {error}"),
                ),
            }
        };
        let by_client = !cancellers.is_empty() && !self.ctx.shutdown.is_cancelled();
        for canceller in cancellers {
            let outcome = kept.clone().map(|kept| Cancelled {
                session: self.record.id,
                turn,
                kept,
            });
            let _ = canceller.send(outcome);
        }
        if by_client {
            SessionError::Cancelled(format!(
                "the answer was cancelled; {what}. Node {turn} stays at the head: send again \
                 to continue from it, or `omnictl back` to drop it"
            ))
        } else {
            SessionError::ShuttingDown(format!(
                "omnid is shutting down and interrupted the answer; {what}. Your turn is saved \
                 as node {turn}"
            ))
        }
    }

    /// A cancel that arrived as the answer ended on its own: nothing was cut short.
    pub(super) fn too_late_to_cancel(
        &self,
        cancellers: Vec<Reply<Cancelled>>,
        result: &Result<Answer, SessionError>,
    ) {
        let ended = match result {
            Ok(answer) => format!("is stored as node {}", answer.node),
            Err(error) => format!("had already ended: {error}"),
        };
        for canceller in cancellers {
            let _ = canceller.send(Err(SessionError::wrong_state(format!(
                "the answer was complete before the cancel took effect; it {ended}"
            ))));
        }
    }
}

/// [`ActorHandle::cancel`]'s command.
pub(super) struct CancelCommand {
    reply: Reply<Cancelled>,
}

impl ActorHandle {
    /// Cancels the answer in flight; answers once the partial answer is stored.
    pub async fn cancel(&self) -> Result<Cancelled, SessionError> {
        self.call(|reply| Command::Cancel(CancelCommand { reply }))
            .await
    }
}

impl Run for CancelCommand {
    async fn run(self, actor: &mut Actor) {
        actor.cancel(self.reply)
    }
}
