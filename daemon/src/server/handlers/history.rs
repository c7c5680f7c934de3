//! `History`: the transcript, read straight from the store.

use omni_proto::{ErrorReply, Reply, SessionRef};

use super::sessions::load;
use crate::session::views;
use crate::state::Daemon;

pub fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    active_only: bool,
) -> Result<Reply, ErrorReply> {
    let (record, tree, nodes) = load(daemon, session)?;
    Ok(Reply::History(views::history(
        &record,
        &tree,
        nodes,
        active_only,
    )))
}
