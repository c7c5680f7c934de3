//! Turning the daemon's internal errors into the typed errors clients receive.

use omni_proto::{ErrorKind, ErrorReply};

use crate::session::tree::TreeError;
use crate::store::StoreError;

/// Shorthand for building an [`ErrorReply`].
pub fn reply(kind: ErrorKind, message: impl Into<String>) -> ErrorReply {
    ErrorReply::new(kind, message)
}

/// A store failure as seen by a client: nothing changed unless the message says so.
pub fn store_error(error: StoreError) -> ErrorReply {
    tracing::error!(%error, "store failure");
    reply(ErrorKind::Internal, error.to_string())
}

/// A refused move: the message says why and what to do instead.
pub fn tree_error(error: TreeError) -> ErrorReply {
    let kind = match error {
        TreeError::UnknownNode(_) => ErrorKind::NotFound,
        TreeError::AtStart | TreeError::NothingToUndo | TreeError::NoAnswerToUndo { .. } => {
            ErrorKind::WrongState
        }
    };
    reply(kind, error.to_string())
}
