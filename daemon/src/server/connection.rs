//! One client connection: handshake, then requests in order until the client leaves.
//!
//! A frame that cannot be read (garbage, truncated, oversized, too slow, over the shared
//! budget) and a connection idle for too long get an error reply where the socket still
//! allows it, and close this connection only. Warnings about them are rate-limited.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use interprocess::local_socket::tokio::Stream;
use omni_proto::{
    ErrorKind, ErrorReply, Event, FrameError, Hello, HelloReply, PROTOCOL_VERSION, RequestFrame,
    Response, ResponseFrame, frame,
};
use tokio_util::sync::CancellationToken;

use super::frames::{Budget, ReadError, read_frame};
use crate::api::{Daemon, Responder, dispatch};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Tells a client over the connection cap to come back later. Its Hello is read first
/// (waiting at most a second, within the shared frame budget), so the client is not
/// writing into a closed socket.
pub async fn refuse(mut stream: Stream, limit: usize, budget: Arc<Budget>) {
    let second = std::time::Duration::from_secs(1);
    let _ = read_frame(&mut stream, second, second, &budget).await;
    let reply = HelloReply::Rejected {
        protocol_version: PROTOCOL_VERSION,
        message: format!("omnid is serving its maximum of {limit} connections; try again shortly"),
    };
    let _ = frame::write(&mut stream, &reply).await;
}

/// Serves one connection until the client closes it, a frame is bad, a limit is broken,
/// or shutdown.
pub async fn serve(
    mut stream: Stream,
    daemon: Arc<Daemon>,
    budget: Arc<Budget>,
    shutdown: CancellationToken,
) {
    daemon
        .services
        .counters
        .connections
        .fetch_add(1, Ordering::Relaxed);
    if handshake(&mut stream, &daemon, &budget).await {
        serve_requests(&mut stream, &daemon, &budget, &shutdown).await;
    }
    daemon
        .services
        .counters
        .connections
        .fetch_sub(1, Ordering::Relaxed);
}

/// Writes a warning about a misbehaving client, unless too many were written lately.
fn warn(daemon: &Daemon, what: &str, problem: &dyn std::fmt::Display) {
    if let Some(held_back) = daemon.warnings.allow(std::time::Instant::now()) {
        if held_back > 0 {
            tracing::warn!(%problem, held_back, "{what} (and {held_back} more warnings like these were held back)");
        } else {
            tracing::warn!(%problem, "{what}");
        }
    }
}

async fn handshake(stream: &mut Stream, daemon: &Daemon, budget: &Arc<Budget>) -> bool {
    let within = daemon.services.live.get().config.client_timeout;
    let hello =
        read_frame(stream, within, within, budget)
            .await
            .and_then(|payload| match payload {
                Some((payload, _grant)) => Ok(Some(frame::decode::<Hello>(&payload)?)),
                None => Ok(None),
            });
    let rejection = match hello {
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
        Err(ReadError::Idle(_) | ReadError::Slow(_)) => format!(
            "no Hello within {} s; closing this connection",
            within.as_secs_f64()
        ),
        Err(error) => format!("expected a Hello frame: {error}"),
    };
    warn(daemon, "refused a client", &rejection);
    let reply = HelloReply::Rejected {
        protocol_version: PROTOCOL_VERSION,
        message: rejection,
    };
    let _ = frame::write(stream, &reply).await;
    false
}

async fn serve_requests(
    stream: &mut Stream,
    daemon: &Daemon,
    budget: &Arc<Budget>,
    shutdown: &CancellationToken,
) {
    loop {
        let live = daemon.services.live.get();
        let config = &live.config;
        let read = tokio::select! {
            _ = shutdown.cancelled() => return,
            read = read_frame(stream, config.idle_timeout, config.client_timeout, budget) => read,
        };
        let request = read.and_then(|payload| match payload {
            Some((payload, _grant)) => Ok(Some(frame::decode::<RequestFrame>(&payload)?)),
            None => Ok(None),
        });
        let request = match request {
            Ok(Some(request)) => request,
            Ok(None) => return,
            Err(error) => {
                refuse_frame(stream, daemon, error).await;
                return;
            }
        };
        let id = request.id;
        let mut responder = Responder::frames(stream, id);
        let result = dispatch(daemon, request.request, &mut responder).await;
        if responder.client_gone() {
            return;
        }
        if !write_final(stream, id, result).await {
            return;
        }
    }
}

/// Writes a request's final frame; a reply too large for one frame goes in pieces.
/// Returns false if the client is gone.
async fn write_final(
    stream: &mut Stream,
    id: u64,
    result: Result<omni_proto::Reply, ErrorReply>,
) -> bool {
    let response = match result {
        Ok(reply) => Response::Reply(reply),
        Err(error) => Response::Error(error),
    };
    let whole = ResponseFrame { id, response };
    let too_large = match frame::write(stream, &whole).await {
        Ok(()) => return true,
        Err(FrameError::TooLarge { len }) => len,
        Err(_) => return false,
    };
    write_pieced(stream, id, whole.response, too_large).await
}

/// Sends a final response too large for one frame as [`Event::ReplyPiece`]s and a closing
/// [`Reply::Pieced`] (the client joins them); one too large even so becomes an error that
/// says so. Returns false if the client is gone.
async fn write_pieced(stream: &mut Stream, id: u64, response: Response, len: usize) -> bool {
    let encoded = match frame::encode_pieced(&response) {
        Ok(encoded) => encoded,
        Err(_) => {
            let error = ErrorReply::new(
                ErrorKind::InvalidRequest,
                format!(
                    "the reply would be {len} bytes or more, over the {}-byte limit of a reply \
                     in pieces; ask for less (for example `history --active`)",
                    omni_proto::MAX_PIECED_REPLY_LEN
                ),
            );
            let response = Response::Error(error);
            return frame::write(stream, &ResponseFrame { id, response })
                .await
                .is_ok();
        }
    };
    for piece in encoded.chunks(omni_proto::REPLY_PIECE_LEN) {
        let response = Response::Event(Event::ReplyPiece(piece.to_vec()));
        if frame::write(stream, &ResponseFrame { id, response })
            .await
            .is_err()
        {
            return false;
        }
    }
    let bytes = encoded.len() as u64;
    let response = Response::Reply(omni_proto::Reply::Pieced(omni_proto::Pieced { bytes }));
    frame::write(stream, &ResponseFrame { id, response })
        .await
        .is_ok()
}

/// Answers an unreadable frame, or a broken limit, with an error (id 0) where the socket
/// still allows it, and lets the caller close.
async fn refuse_frame(stream: &mut Stream, daemon: &Daemon, error: ReadError) {
    if matches!(error, ReadError::Frame(FrameError::Io(_))) {
        return;
    }
    match &error {
        ReadError::Idle(_) => tracing::debug!(%error, "closing an idle connection"),
        _ => warn(daemon, "closing a connection after a bad frame", &error),
    }
    let message = match &error {
        ReadError::Frame(frame_error) => format!("{frame_error}; closing this connection"),
        other => other.to_string(),
    };
    let reply = ErrorReply::new(ErrorKind::InvalidRequest, message);
    let _ = frame::write(
        stream,
        &ResponseFrame {
            id: 0,
            response: Response::Error(reply),
        },
    )
    .await;
}
