//! `Branches`: every leaf of the session's tree.

use omni_proto::{ErrorReply, Reply, SessionRef};

use super::sessions::{Loaded, load};
use crate::api::state::Daemon;
use crate::api::views;
use crate::session::SessionError;

pub fn handle(daemon: &Daemon, session: &SessionRef) -> Result<Reply, ErrorReply> {
    match load(daemon, session)? {
        Loaded::Whole {
            record,
            tree,
            nodes,
        } => Ok(Reply::Branches(views::branches(&record, &tree, &nodes))),
        Loaded::Damaged { id, reason, .. } => Err(SessionError::Damaged {
            session: id,
            reason,
        }
        .into()),
    }
}
