//! `Status`: version, uptime, socket, store and activity; and `Ping`, whether it answers
//! at all.

use omni_proto::{DaemonStatus, ErrorReply, Ping, Status};

use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views;

impl Handle for Status {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<DaemonStatus, ErrorReply> {
        Ok(views::status::status(daemon).await)
    }
}

impl Handle for Ping {
    async fn handle(self, _: &Daemon, _: &mut Responder<'_>) -> Result<(), ErrorReply> {
        Ok(())
    }
}
