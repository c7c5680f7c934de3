//! `NewSession`: create an empty session; it becomes the current one.

use omni_proto::{ErrorReply, Reply};

use crate::state::Daemon;

pub async fn handle(daemon: &Daemon) -> Result<Reply, ErrorReply> {
    let record = daemon.sessions.create().await?;
    tracing::info!(session = %record.id, "session created");
    Ok(Reply::SessionCreated {
        session: record.id.to_string(),
    })
}
