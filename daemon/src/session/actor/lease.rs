//! The session's lease on a shared store (see `crate::store::Lease`): the actor takes it
//! before the first write of a turn or a compaction, every commit in between is made
//! under it, and it is let go before the requester hears how the change ended, so another
//! instance may take the session the moment this one is done. On the embedded store
//! there is nothing to take.

use super::Actor;
use crate::session::SessionError;

impl Actor {
    /// Takes the session's lease, unless the actor holds it already; refused while another
    /// instance holds it.
    pub(super) async fn hold(&mut self) -> Result<(), SessionError> {
        if self.lease.is_none() {
            self.lease = self.ctx.store.hold(&self.record.id).await?;
        }
        Ok(())
    }

    /// Lets the session's lease go, if the actor holds it.
    pub(super) async fn let_go(&mut self) {
        if let Some(lease) = self.lease.take() {
            self.ctx.store.release(lease).await;
        }
    }
}
