//! `History`: the transcript, read straight from the store.

use omni_proto::{ErrorReply, History, HistoryView};

use super::sessions::load;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;

impl Handle for History {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<HistoryView, ErrorReply> {
        load(daemon, &self.session)
            .await?
            .history(daemon, self.active_only)
            .await
    }
}
