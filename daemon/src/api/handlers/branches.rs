//! `Branches`: every leaf of the session's tree.

use omni_proto::{BranchList, Branches, ErrorReply};

use super::sessions::{Loaded, load};
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views;
use crate::session::SessionError;

impl Handle for Branches {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<BranchList, ErrorReply> {
        match load(daemon, &self.session).await? {
            Loaded::Whole {
                record,
                tree,
                nodes,
            } => Ok(views::branches(&record, &tree, &nodes)),
            Loaded::Damaged { id, reason, .. } => Err(SessionError::Damaged {
                session: id,
                reason,
            }
            .into()),
        }
    }
}
