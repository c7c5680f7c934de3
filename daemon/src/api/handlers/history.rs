//! `History`: the transcript, read straight from the store.

use omni_proto::{ErrorReply, Reply, SessionRef};

use super::sessions::load;
use crate::api::state::Daemon;

pub fn handle(
    daemon: &Daemon,
    session: &SessionRef,
    active_only: bool,
) -> Result<Reply, ErrorReply> {
    Ok(Reply::History(
        load(daemon, session)?.history(daemon, active_only)?,
    ))
}
