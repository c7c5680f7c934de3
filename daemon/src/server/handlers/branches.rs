//! `Branches`: every leaf of the session's tree.

use omni_proto::{ErrorReply, Reply, SessionRef};

use super::sessions::load;
use crate::session::views;
use crate::state::Daemon;

pub fn handle(daemon: &Daemon, session: &SessionRef) -> Result<Reply, ErrorReply> {
    let (record, tree, nodes) = load(daemon, session)?;
    Ok(Reply::Branches(views::branches(&record, &tree, &nodes)))
}
