//! `Status`: version, uptime, socket, store and activity.

use omni_proto::{ErrorReply, Reply};

use crate::api::state::Daemon;
use crate::api::views;

pub fn handle(daemon: &Daemon) -> Result<Reply, ErrorReply> {
    Ok(Reply::Status(Box::new(views::status::status(daemon))))
}
