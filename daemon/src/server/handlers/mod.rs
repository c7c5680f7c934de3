//! Request handlers: one file per request kind, each a function from a request to a reply.
//! Reads go straight to the store (they never wait behind a streaming answer); changes go
//! through the session's actor.

mod branches;
mod history;
mod moves;
mod new_session;
mod resume;
mod send;
mod sessions;
mod status;

use omni_proto::{ErrorReply, Reply, Request};

use super::connection::Responder;
use crate::state::Daemon;

/// Runs one request; events go out through `responder` as they happen.
pub async fn dispatch(
    daemon: &Daemon,
    request: Request,
    responder: &mut Responder<'_>,
) -> Result<Reply, ErrorReply> {
    match request {
        Request::Ping => Ok(Reply::Pong),
        Request::NewSession => new_session::handle(daemon).await,
        Request::Send { session, prompt } => {
            send::handle(daemon, &session, prompt, responder).await
        }
        Request::History {
            session,
            active_only,
        } => history::handle(daemon, &session, active_only),
        Request::Move { session, op } => moves::handle(daemon, &session, op).await,
        Request::Branches { session } => branches::handle(daemon, &session),
        Request::Sessions => sessions::handle(daemon),
        Request::Status => status::handle(daemon),
        Request::Resume { session } => resume::handle(daemon, &session).await,
    }
}
