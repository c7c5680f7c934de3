//! The per-session error limit: keep the last valid instruction, never go rogue. Each send
//! that fails after its retries counts; any success resets the count; at
//! [`SUSPEND_AFTER`] the session is suspended (durably) and sends are refused until
//! `omnictl resume`.

use super::{Actor, ActorHandle, Command, Reply, Run};
use crate::model::Suspension;
use crate::session::SessionError;
use crate::session::outcome::SessionEvent;
use crate::text::then;
use crate::time::now_ms;

/// Consecutive failed sends that suspend a session.
pub const SUSPEND_AFTER: u32 = 3;

fn suspended_message(id: &uuid::Uuid) -> String {
    format!(
        "session {id} suspended after {SUSPEND_AFTER} consecutive failures; \
         resume with `omnictl resume {id}`"
    )
}

impl Actor {
    /// Refuses a send to a suspended session.
    pub(super) fn refuse_if_suspended(&self) -> Result<(), SessionError> {
        match &self.record.suspended {
            Some(_) => Err(SessionError::Suspended(suspended_message(&self.record.id))),
            None => Ok(()),
        }
    }

    /// Counts a failed send (durably) and returns the error the client gets: the failure,
    /// what became of the prompt, and the suspension if this failure caused it.
    pub(super) async fn record_failure(&mut self, failure: &str, saved: &str) -> SessionError {
        let failures = self.record.consecutive_failures + 1;
        let suspend = failures >= SUSPEND_AFTER;
        let committed = self
            .commit_with(None, None, |record| {
                record.consecutive_failures = failures;
                if suspend {
                    record.suspended = Some(Suspension {
                        at_ms: now_ms(),
                        last_error: failure.to_string(),
                    });
                }
            })
            .await;
        if let Err(error) = committed {
            return SessionError::Storage(then(
                &then(failure, saved),
                &format!("Also: {}", error.error("the failure count")),
            ));
        }
        if suspend {
            tracing::warn!(session = %self.record.id, failures, "session suspended");
            SessionError::Suspended(then(
                &then(failure, saved),
                &suspended_message(&self.record.id),
            ))
        } else {
            SessionError::Upstream(then(
                failure,
                &format!(
                    "{saved} ({failures} of {SUSPEND_AFTER} failures in a row before the \
                         session is suspended)"
                ),
            ))
        }
    }

    /// Lifts a suspension and resets the count; the history is untouched. Returns whether
    /// there was anything to lift.
    pub(super) async fn resume(&mut self) -> Result<bool, SessionError> {
        self.refuse_change()?;
        let was_suspended = self.record.suspended.is_some();
        if was_suspended || self.record.consecutive_failures > 0 {
            self.commit_with(None, None, |record| {
                record.suspended = None;
                record.consecutive_failures = 0;
            })
            .await
            .map_err(|e| e.error("the resumption"))?;
        }
        Ok(was_suspended)
    }
}

/// [`ActorHandle::resume`]'s command.
pub(super) struct ResumeCommand {
    reply: Reply<bool>,
}

impl ActorHandle {
    /// Lifts a suspension; returns whether the session was suspended.
    pub async fn resume(&self) -> Result<bool, SessionError> {
        self.call(|reply| Command::Resume(ResumeCommand { reply }))
            .await
    }
}

impl Run for ResumeCommand {
    async fn run(self, actor: &mut Actor) {
        let result = actor.resume().await;
        if result.is_ok() {
            actor.announce(SessionEvent::Resumed(actor.record.id));
        }
        let _ = self.reply.send(result);
    }
}
