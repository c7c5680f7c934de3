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
    let kind = match error {
        StoreError::DiskFull { .. } | StoreError::Unavailable(_) | StoreError::Sync(_) => {
            ErrorKind::Storage
        }
        _ if error.is_disk_full() => ErrorKind::Storage,
        _ => ErrorKind::Internal,
    };
    reply(kind, error.to_string())
}

/// A change refused because the session's records disagree.
pub fn damaged(id: &uuid::Uuid, reason: &str) -> ErrorReply {
    reply(
        ErrorKind::Damaged,
        format!(
            "session {id} is damaged in the store: {reason}. It stays readable (`omnictl \
             history`, `omnictl logs export`) but takes no changes; other sessions are \
             unaffected"
        ),
    )
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

/// Two sentences joined with exactly one full stop between them, whatever the first one
/// ends with (API messages usually end with their own).
pub fn then(first: &str, next: &str) -> String {
    format!("{}. {next}", first.trim_end().trim_end_matches('.'))
}

/// "1 attempt", "3 attempts".
pub fn count(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_join_with_one_full_stop_and_counts_agree() {
        assert_eq!(then("Try again later.", "Saved"), "Try again later. Saved");
        assert_eq!(then("failed", "Saved"), "failed. Saved");
        assert_eq!(count(1, "attempt"), "1 attempt");
        assert_eq!(count(2, "attempt"), "2 attempts");
    }
}
