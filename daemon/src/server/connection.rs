//! One client connection: handshake, then requests in order until the client leaves.
//!
//! A frame that cannot be read (garbage, truncated, oversized) gets an error reply where
//! the socket still allows it, and closes this connection only.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use interprocess::local_socket::tokio::Stream;
use omni_proto::{
    ErrorKind, ErrorReply, FrameError, Hello, HelloReply, PROTOCOL_VERSION, RequestFrame, Response,
    ResponseFrame, frame,
};
use tokio_util::sync::CancellationToken;

use super::handlers;
use crate::state::Daemon;

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Writes frames for one request: its events, then its reply.
pub struct Responder<'a> {
    stream: &'a mut Stream,
    id: u64,
    client_gone: bool,
}

impl Responder<'_> {
    /// Sends an event. A client that went away is not an error: the request finishes (and
    /// its results are stored) without it.
    pub async fn event(&mut self, event: omni_proto::Event) {
        if self.client_gone {
            return;
        }
        let frame = ResponseFrame {
            id: self.id,
            response: Response::Event(event),
        };
        if frame::write(self.stream, &frame).await.is_err() {
            self.client_gone = true;
        }
    }
}

/// Tells a client over the connection cap to come back later. Its Hello is read first
/// (waiting at most a second), so the client is not writing into a closed socket.
pub async fn refuse(mut stream: Stream, limit: usize) {
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(1),
        frame::read_payload(&mut stream),
    )
    .await;
    let reply = HelloReply::Rejected {
        protocol_version: PROTOCOL_VERSION,
        message: format!("omnid is serving its maximum of {limit} connections; try again shortly"),
    };
    let _ = frame::write(&mut stream, &reply).await;
}

/// Serves one connection until the client closes it, a frame is bad, or shutdown.
pub async fn serve(mut stream: Stream, daemon: Arc<Daemon>, shutdown: CancellationToken) {
    daemon.connections.fetch_add(1, Ordering::Relaxed);
    if handshake(&mut stream).await {
        serve_requests(&mut stream, &daemon, &shutdown).await;
    }
    daemon.connections.fetch_sub(1, Ordering::Relaxed);
}

async fn handshake(stream: &mut Stream) -> bool {
    let rejection = match frame::read::<Hello, _>(stream).await {
        Ok(Some(hello)) if hello.protocol_version == PROTOCOL_VERSION => {
            let welcome = HelloReply::Welcome {
                protocol_version: PROTOCOL_VERSION,
                daemon_version: VERSION.to_string(),
            };
            return frame::write(stream, &welcome).await.is_ok();
        }
        Ok(Some(hello)) => format!(
            "{} speaks protocol version {}, but this omnid ({VERSION}) speaks version \
             {PROTOCOL_VERSION}; use omnictl and omnid from the same release",
            hello.client, hello.protocol_version
        ),
        Ok(None) => return false,
        Err(error) => format!("expected a Hello frame: {error}"),
    };
    tracing::warn!(%rejection, "refused a client");
    let reply = HelloReply::Rejected {
        protocol_version: PROTOCOL_VERSION,
        message: rejection,
    };
    let _ = frame::write(stream, &reply).await;
    false
}

async fn serve_requests(stream: &mut Stream, daemon: &Daemon, shutdown: &CancellationToken) {
    loop {
        let payload = tokio::select! {
            _ = shutdown.cancelled() => return,
            payload = frame::read_payload(stream) => payload,
        };
        let request =
            match payload.and_then(|p| p.map(|p| frame::decode::<RequestFrame>(&p)).transpose()) {
                Ok(Some(request)) => request,
                Ok(None) => return,
                Err(error) => {
                    refuse_frame(stream, error).await;
                    return;
                }
            };
        let id = request.id;
        let mut responder = Responder {
            stream,
            id,
            client_gone: false,
        };
        let result = handlers::dispatch(daemon, request.request, &mut responder).await;
        if responder.client_gone {
            return;
        }
        if !write_final(stream, id, result).await {
            return;
        }
    }
}

/// Writes a request's final frame; a reply too large for one frame becomes an error that
/// says so. Returns false if the client is gone.
async fn write_final(
    stream: &mut Stream,
    id: u64,
    result: Result<omni_proto::Reply, ErrorReply>,
) -> bool {
    let response = match result {
        Ok(reply) => Response::Reply(reply),
        Err(error) => Response::Error(error),
    };
    match frame::write(stream, &ResponseFrame { id, response }).await {
        Ok(()) => true,
        Err(FrameError::TooLarge { len }) => {
            let error = ErrorReply::new(
                ErrorKind::InvalidRequest,
                format!(
                    "the reply would be {len} bytes, over the {}-byte frame limit; \
                     ask for less (for example `history --active`)",
                    omni_proto::MAX_FRAME_LEN
                ),
            );
            let response = Response::Error(error);
            frame::write(stream, &ResponseFrame { id, response })
                .await
                .is_ok()
        }
        Err(_) => false,
    }
}

/// Answers an unreadable frame with an error (id 0) and lets the caller close.
async fn refuse_frame(stream: &mut Stream, error: FrameError) {
    tracing::warn!(%error, "closing a connection after a bad frame");
    if matches!(error, FrameError::Io(_)) {
        return;
    }
    let reply = ErrorReply::new(
        ErrorKind::InvalidRequest,
        format!("{error}; closing this connection"),
    );
    let _ = frame::write(
        stream,
        &ResponseFrame {
            id: 0,
            response: Response::Error(reply),
        },
    )
    .await;
}
