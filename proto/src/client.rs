//! A small async client: connect, handshake, then request → events → reply.
//!
//! `omnictl`, the end-to-end tests and the benches all talk to the daemon through this.

use std::io;
use std::path::{Path, PathBuf};

use interprocess::local_socket::tokio::Stream;
use interprocess::local_socket::traits::tokio::Stream as _;
use interprocess::local_socket::{GenericFilePath, ToFsName};

use crate::error::{ErrorReply, FrameError};
use crate::frame;
use crate::limits::{MAX_PIECED_REPLY_LEN, PROTOCOL_VERSION};
use crate::message::{Hello, HelloReply};
use crate::replies::Reply;
use crate::replies::ReplyKind;
use crate::requests::{Call, Request, RequestFrame};
use crate::response::{Event, Response, ResponseFrame};

/// Why a client could not get an answer.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The socket could not be reached (missing, refused, not permitted).
    #[error("cannot reach omnid at {}: {source}", path.display())]
    Connect {
        /// The socket path tried.
        path: PathBuf,
        /// The OS error; its kind tells missing from refused from forbidden.
        source: io::Error,
    },
    /// The daemon refused the handshake (protocol mismatch).
    #[error("{0}")]
    Rejected(String),
    /// The daemon closed the connection without a final reply.
    #[error("omnid closed the connection before answering (was it stopped?)")]
    Closed,
    /// A frame could not be read or written.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The daemon answered with an error.
    #[error(transparent)]
    Daemon(#[from] ErrorReply),
    /// The daemon answered with a reply of another kind than the request's (a daemon of
    /// another release, or a bug).
    #[error("omnid sent an unexpected reply: {0}")]
    Unexpected(String),
}

/// A connection to `omnid` that has completed the handshake.
pub struct Client {
    stream: Stream,
    next_id: u64,
}

impl Client {
    /// Connects to the daemon's socket and performs the `Hello`/`Welcome` handshake.
    pub async fn connect(path: &Path, client_name: &str) -> Result<Self, ClientError> {
        let connect_error = |source| ClientError::Connect {
            path: path.to_path_buf(),
            source,
        };
        let name = path
            .to_fs_name::<GenericFilePath>()
            .map_err(connect_error)?;
        let mut stream = Stream::connect(name).await.map_err(connect_error)?;
        let hello = Hello {
            protocol_version: PROTOCOL_VERSION,
            client: client_name.to_string(),
        };
        frame::write(&mut stream, &hello).await?;
        match frame::read::<HelloReply, _>(&mut stream).await? {
            Some(HelloReply::Welcome { .. }) => Ok(Self { stream, next_id: 1 }),
            Some(HelloReply::Rejected { message, .. }) => Err(ClientError::Rejected(message)),
            None => Err(ClientError::Closed),
        }
    }

    /// Sends one request, hands every event to `on_event` as it arrives, and returns its
    /// reply, of the type the request names.
    pub async fn request<C: Call>(
        &mut self,
        call: C,
        on_event: impl FnMut(Event),
    ) -> Result<C::Reply, ClientError> {
        let reply = self.call(call.into(), on_event).await?;
        C::Reply::from_reply(reply).map_err(|other| ClientError::Unexpected(format!("{other:?}")))
    }

    /// Sends one request as it goes on the wire, hands every event to `on_event` as it
    /// arrives, and returns the final reply, whatever its kind.
    pub async fn call(
        &mut self,
        request: Request,
        mut on_event: impl FnMut(Event),
    ) -> Result<Reply, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        frame::write(&mut self.stream, &RequestFrame { id, request }).await?;
        let mut pieces: Vec<u8> = Vec::new();
        loop {
            let frame: ResponseFrame = frame::read(&mut self.stream)
                .await?
                .ok_or(ClientError::Closed)?;
            // Id 0 carries connection-level errors (e.g. a frame the daemon could not read).
            if frame.id != id && frame.id != 0 {
                continue;
            }
            let response = match frame.response {
                Response::Event(Event::ReplyPiece(piece)) => {
                    if pieces.len() + piece.len() > MAX_PIECED_REPLY_LEN {
                        return Err(FrameError::TooLarge {
                            len: pieces.len() + piece.len(),
                        }
                        .into());
                    }
                    pieces.extend_from_slice(&piece);
                    continue;
                }
                Response::Reply(Reply::Pieced(_)) => {
                    frame::decode_pieced::<Response>(&std::mem::take(&mut pieces))?
                }
                response => response,
            };
            match response {
                Response::Event(event) => on_event(event),
                Response::Reply(reply) => return Ok(reply),
                Response::Error(error) => return Err(ClientError::Daemon(error)),
            }
        }
    }
}
