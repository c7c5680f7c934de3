//! Which models a session asks: its own (or the daemon's), then its fallbacks (or the
//! daemon's), each resolved to an endpoint when a send starts; and switching the model
//! between turns.

use super::{Actor, ActorHandle, Command, Reply, Run};
use crate::services::{Endpoint, Live};
use crate::session::SessionError;

impl Actor {
    /// The session's model and its fallbacks, resolved, the session's own first. A
    /// fallback the configuration no longer knows is skipped (and said so in the log); the
    /// session's own model must resolve.
    pub(super) fn model_chain(&self, live: &Live) -> Result<Vec<Endpoint>, SessionError> {
        let providers = &live.config.provider;
        let own = self.record.model.as_ref().unwrap_or(&providers.model);
        let first = live.endpoint(own).map_err(|error| {
            SessionError::invalid(format!(
                "this session's model `{own}` cannot be asked: {error}. Choose another with \
                 `omnictl model REF`"
            ))
        })?;
        let fallback = if self.record.fallback.is_empty() {
            &providers.fallback
        } else {
            &self.record.fallback
        };
        let mut chain = vec![first];
        for reference in fallback {
            match live.endpoint(reference) {
                Ok(endpoint) if chain.iter().all(|e| e.reference != endpoint.reference) => {
                    chain.push(endpoint);
                }
                Ok(_) => {}
                Err(error) => tracing::warn!(
                    session = %self.record.id,
                    "fallback model {reference} skipped: {error}"
                ),
            }
        }
        Ok(chain)
    }

    /// `model REF`: the session asks `reference` from its next send on. Stored as
    /// `PROVIDER/MODEL`, so a later change of the default provider does not move it.
    pub(super) async fn set_model(&mut self, reference: String) -> Result<(), SessionError> {
        self.refuse_change()?;
        let canonical = self
            .ctx
            .live
            .get()
            .config
            .provider
            .canonical(&reference)
            .map_err(|error| SessionError::invalid(error.to_string()))?;
        self.commit_with(None, None, |record| record.model = Some(canonical))
            .await
            .map_err(|e| e.error("the model choice"))?;
        Ok(())
    }
}

/// [`ActorHandle::set_model`]'s command.
pub(super) struct SetModelCommand {
    reference: String,
    reply: Reply<()>,
}

impl ActorHandle {
    /// Switches the model the session asks, from its next send on.
    pub async fn set_model(&self, reference: String) -> Result<(), SessionError> {
        self.call(|reply| Command::SetModel(SetModelCommand { reference, reply }))
            .await
    }
}

impl Run for SetModelCommand {
    async fn run(self, actor: &mut Actor) {
        let result = actor.set_model(self.reference).await;
        actor.announce_change(&result);
        let _ = self.reply.send(result);
    }
}
