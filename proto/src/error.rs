//! Errors that cross the wire, and errors of the framing layer itself.

use serde::{Deserialize, Serialize};

/// What kind of failure a request met, so clients can react without parsing messages.
///
/// In JSON each kind is its snake_case name (`not_found`, `needs_recovery`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The session, node or other named thing does not exist.
    NotFound,
    /// The session is doing something else (for example streaming an answer) right now.
    Busy,
    /// The request itself is malformed or breaks a limit.
    InvalidRequest,
    /// The request is valid but not in the session's current state (e.g. `back` at the start).
    WrongState,
    /// The model API failed and the turn could not be completed.
    UpstreamFailure,
    /// Something went wrong inside the daemon (storage, a bug). The message says what.
    Internal,
    /// The daemon is shutting down and does not take new work.
    ShuttingDown,
    /// The session is suspended after repeated failed sends; `omnictl resume` lifts it.
    Suspended,
    /// The session needs a recovery choice (`omnictl recover`) before it takes sends.
    NeedsRecovery,
    /// The store could not save (a full disk, a failing device); the message says exactly
    /// what was kept.
    Storage,
    /// The session's records disagree with each other: it stays readable but takes no
    /// changes.
    Damaged,
    /// The answer was cancelled by a client; the message says what was kept.
    Cancelled,
}

/// The final answer to a request that failed: a kind and one clear sentence for the user.
#[derive(
    Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, thiserror::Error,
)]
#[error("{message}")]
pub struct ErrorReply {
    /// What kind of failure this is.
    pub kind: ErrorKind,
    /// What went wrong and what to do about it, in one or two sentences.
    pub message: String,
}

impl ErrorReply {
    /// Builds an error reply of the given kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// Why a frame could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The length prefix claims more than [`crate::limits::MAX_FRAME_LEN`] bytes.
    #[error("frame of {len} bytes exceeds the {limit}-byte limit", limit = crate::limits::MAX_FRAME_LEN)]
    TooLarge {
        /// The length the frame claimed (or would have had).
        len: usize,
    },
    /// The peer closed the connection in the middle of a frame.
    #[error("connection closed in the middle of a frame ({got} of {expected} bytes)")]
    Truncated {
        /// Bytes received.
        got: usize,
        /// Bytes announced by the length prefix.
        expected: usize,
    },
    /// The payload is not a valid encoding of the expected message.
    #[error("malformed frame: {0}")]
    Malformed(String),
    /// The payload decoded but left bytes unread, so it was not the expected message.
    #[error("malformed frame: {trailing} unexpected trailing bytes")]
    TrailingBytes {
        /// How many bytes were left after decoding.
        trailing: usize,
    },
    /// The socket failed.
    #[error("socket error: {0}")]
    Io(#[from] std::io::Error),
}
