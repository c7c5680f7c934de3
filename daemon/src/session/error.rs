//! Why a session refused or failed a request, in the session layer's own terms. The
//! server turns these into wire errors (and, later, HTTP statuses); nothing here knows a
//! protocol.

use uuid::Uuid;

use super::tree::TreeError;
use crate::store::StoreError;

/// Why a request about a session did not succeed. Each message says what was wrong and
/// what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum SessionError {
    /// The session, node or other named thing does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The session is answering a prompt right now.
    #[error("session {0} is busy answering a prompt; wait for the answer, then try again")]
    Busy(Uuid),
    /// Another omnid sharing the store is changing the session right now; the message
    /// names it.
    #[error("{0}")]
    BusyElsewhere(String),
    /// The request itself is malformed.
    #[error("{0}")]
    Invalid(String),
    /// The request does not fit the session's state.
    #[error("{0}")]
    WrongState(String),
    /// The model API failed and the turn could not be completed.
    #[error("{0}")]
    Upstream(String),
    /// Something went wrong inside the daemon.
    #[error("{0}")]
    Internal(String),
    /// The daemon is shutting down; the message says what became of the request.
    #[error("{0}")]
    ShuttingDown(String),
    /// The session is suspended after repeated failed sends.
    #[error("{0}")]
    Suspended(String),
    /// The session's actor was just unloaded (it had been idle); the request can be sent
    /// again at once.
    #[error("session {0} was being unloaded after being idle; send the request again")]
    Unloaded(Uuid),
    /// The session needs a recovery choice before it takes sends.
    #[error("session {session} needs recovery: {reason}")]
    NeedsRecovery {
        /// The session.
        session: Uuid,
        /// What went wrong.
        reason: String,
    },
    /// The store could not save; the message says exactly what was kept.
    #[error("{0}")]
    Storage(String),
    /// The answer was cancelled by a client; the message says what was kept.
    #[error("{0}")]
    Cancelled(String),
    /// The session's records disagree: it is readable, and takes no changes.
    #[error(
        "session {session} is damaged in the store: {reason}. It stays readable (`omnictl \
         history`, `omnictl logs export`) but takes no changes; other sessions are \
         unaffected"
    )]
    Damaged {
        /// The session.
        session: Uuid,
        /// What is wrong.
        reason: String,
    },
}

impl SessionError {
    /// [`SessionError::ShuttingDown`], nothing more to say.
    pub fn shutting_down() -> Self {
        Self::ShuttingDown("omnid is shutting down; try again once it is back".into())
    }

    /// [`SessionError::NotFound`].
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::NotFound(message.into())
    }

    /// [`SessionError::Invalid`].
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }

    /// [`SessionError::WrongState`].
    pub fn wrong_state(message: impl Into<String>) -> Self {
        Self::WrongState(message.into())
    }
}

impl From<StoreError> for SessionError {
    /// A store failure: nothing changed unless the message says so.
    fn from(error: StoreError) -> Self {
        if let StoreError::HeldElsewhere { .. } = error {
            return Self::BusyElsewhere(error.to_string());
        }
        tracing::error!(%error, "store failure");
        match error {
            StoreError::DiskFull { .. }
            | StoreError::Unavailable(_)
            | StoreError::Sync(_)
            | StoreError::Database { .. }
            | StoreError::ChangedElsewhere { .. }
            | StoreError::LeaseLost { .. } => Self::Storage(error.to_string()),
            _ if error.is_disk_full() => Self::Storage(error.to_string()),
            _ => Self::Internal(error.to_string()),
        }
    }
}

impl From<TreeError> for SessionError {
    /// A refused move: the message says why and what to do instead.
    fn from(error: TreeError) -> Self {
        match error {
            TreeError::UnknownNode(_) => Self::NotFound(error.to_string()),
            TreeError::AtStart
            | TreeError::NothingToUndo
            | TreeError::NoAnswerToUndo { .. }
            | TreeError::NothingToCompact { .. } => Self::WrongState(error.to_string()),
            TreeError::NotKept(_) => Self::Internal(error.to_string()),
        }
    }
}
