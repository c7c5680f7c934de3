//! How `omnictl` fails: one clear sentence and an exit code scripts can rely on.

use std::fmt;
use std::io;

use omni_proto::{ClientError, ErrorKind, FrameError};

/// Exit codes (stable: scripts rely on them).
pub mod exit {
    /// Something failed.
    pub const FAILURE: u8 = 1;
    /// The command line or the request was wrong.
    pub const USAGE: u8 = 2;
    /// The session needs a recovery choice (`omnictl recover`).
    pub const NEEDS_RECOVERY: u8 = 3;
    /// The daemon could not be reached.
    pub const UNREACHABLE: u8 = 4;
    /// The session is suspended after repeated failed sends.
    pub const SUSPENDED: u8 = 5;
    /// Ctrl-C: the answer was cancelled (or omnictl stopped following).
    pub const INTERRUPTED: u8 = 130;
}

/// A failure to report on stderr, with its exit code.
#[derive(Debug)]
pub struct CtlError {
    /// The exit code.
    pub code: u8,
    /// The error kind from the daemon, if it came from there.
    pub kind: Option<ErrorKind>,
    /// One clear sentence: what was wrong and what to do.
    pub message: String,
}

impl CtlError {
    /// A plain failure (exit 1).
    pub fn failure(message: impl Into<String>) -> Self {
        Self {
            code: exit::FAILURE,
            kind: None,
            message: message.into(),
        }
    }

    /// A usage error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: exit::USAGE,
            kind: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for CtlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Explains why the socket could not be reached.
fn unreachable(path: &std::path::Path, source: &io::Error) -> String {
    let path = path.display();
    match source.kind() {
        io::ErrorKind::NotFound => format!(
            "omnid is not running: there is no socket at {path}; start it with `omnid` \
             (or `systemctl --user start omnid`), or point --socket / OMNI_SOCKET at it"
        ),
        io::ErrorKind::ConnectionRefused => format!(
            "omnid is not accepting connections at {path} (it may have stopped or crashed); \
             start it again"
        ),
        io::ErrorKind::PermissionDenied => format!(
            "permission denied on {path}: the socket belongs to another user; \
             use your own omnid or run as its owner"
        ),
        _ => format!("cannot reach omnid at {path}: {source}"),
    }
}

impl From<ClientError> for CtlError {
    fn from(error: ClientError) -> Self {
        match error {
            ClientError::Connect { path, source } => Self {
                code: exit::UNREACHABLE,
                kind: None,
                message: unreachable(&path, &source),
            },
            ClientError::Daemon(reply) => Self {
                code: match reply.kind {
                    ErrorKind::InvalidRequest => exit::USAGE,
                    ErrorKind::Suspended => exit::SUSPENDED,
                    ErrorKind::NeedsRecovery => exit::NEEDS_RECOVERY,
                    ErrorKind::Cancelled => exit::INTERRUPTED,
                    ErrorKind::NotFound
                    | ErrorKind::Busy
                    | ErrorKind::WrongState
                    | ErrorKind::UpstreamFailure
                    | ErrorKind::Internal
                    | ErrorKind::ShuttingDown
                    | ErrorKind::Storage
                    | ErrorKind::Damaged => exit::FAILURE,
                },
                kind: Some(reply.kind),
                message: reply.message,
            },
            ClientError::Frame(FrameError::TooLarge { len }) => Self::usage(format!(
                "the request is {len} bytes, over the {}-byte limit; send a shorter prompt",
                omni_proto::MAX_FRAME_LEN
            )),
            ClientError::Frame(FrameError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                Self::failure("omnid closed the connection (was it stopped?)")
            }
            other => Self::failure(other.to_string()),
        }
    }
}
