//! From a request to its handler: the one table both edges (the socket and HTTP) use,
//! made from the protocol's list of requests (`omni_proto::with_requests!`).

use omni_proto::{Call, ErrorReply, Reply, ReplyKind, Request};

use super::responder::Responder;
use crate::api::state::Daemon;

/// A request the daemon answers: each request struct's handler, in its own file under
/// `handlers/`. It returns the reply type the request names, so a request cannot be
/// answered with another's reply.
pub(super) trait Handle: Call {
    /// Runs the request; events go out through `responder` as they happen.
    async fn handle(
        self,
        daemon: &Daemon,
        responder: &mut Responder<'_>,
    ) -> Result<Self::Reply, ErrorReply>;
}

/// `dispatch`: one arm per request of the list.
macro_rules! dispatch_all {
    ($($variant:ident($call:ty) => $reply:ty,)*) => {
        /// Runs one request; events go out through `responder` as they happen.
        pub async fn dispatch(
            daemon: &Daemon,
            request: Request,
            responder: &mut Responder<'_>,
        ) -> Result<Reply, ErrorReply> {
            match request {
                $(Request::$variant(call) => {
                    call.handle(daemon, responder).await.map(ReplyKind::into_reply)
                })*
            }
        }
    };
}

omni_proto::with_requests!(dispatch_all);
