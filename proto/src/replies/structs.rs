//! The replies that have no type of their own elsewhere, and the replies of requests
//! that answer in one of two ways.

use serde::{Deserialize, Serialize};

use crate::recovery::{ErrorSummary, PendingCall, Recovered};
use crate::view::Answer;

/// [`crate::Attach`] never ends in a reply: it follows the session until the client
/// leaves (then it ends in an error nobody reads) or the daemon stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detached {}

/// No value: the schema that nothing matches.
impl schemars::JsonSchema for Detached {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Detached".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::Schema::from(false)
    }
}

/// What a function result did: stored while other calls still wait, or the last one,
/// answered. Its JSON is the one or the other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ToolResultOutcome {
    /// Stored; these calls still wait for theirs.
    Stored(ToolResultStored),
    /// Every call had its result: they were sent and this is the answer.
    Answered(Box<Answer>),
}

/// What a recovery did: moved the head, or (retry) answered the turn again. Its JSON is
/// the one or the other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RecoverOutcome {
    /// The session's head moved; nothing was sent.
    Recovered(Recovered),
    /// The turn was sent again and answered.
    Answered(Box<Answer>),
}

/// Recorded errors, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorList {
    /// One line per error.
    pub errors: Vec<ErrorSummary>,
}

/// The final response came as [`crate::Event::ReplyPiece`]s: `bytes` of them, together
/// one encoded [`crate::Response`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Pieced {
    /// The pieces' length, all together.
    #[serde(rename = "pieced_bytes")]
    pub bytes: u64,
}

/// A session was created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionCreated {
    /// The new session's id.
    pub session: String,
}

/// A session was resumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Resumed {
    /// The session's id.
    pub session: String,
    /// Whether it had been suspended (false: nothing needed doing).
    pub was_suspended: bool,
}

/// A tool result was stored; these calls still wait for theirs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolResultStored {
    /// The session's id.
    pub session: String,
    /// The calls of the model's turn, with which ones are answered.
    pub calls: Vec<PendingCall>,
}

/// A diagnostic bundle was sent (as [`crate::Event::BundleData`] pieces).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Bundle {
    /// A file name for it (`omni-bundle-<session>-<time>.json`).
    pub name: String,
    /// How many error records it holds.
    pub errors: u32,
    /// Its size in bytes (all pieces together).
    pub bytes: u64,
}

/// Where the daemon writes its API error log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LogFile {
    /// `api_errors.log` in the daemon's log directory.
    pub path: String,
}

/// An answer was cancelled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cancelled {
    /// The session's id.
    pub session: String,
    /// The turn whose answer was cancelled; the head stays on it.
    pub turn: u64,
    /// The interrupted node holding the partial answer, if anything had arrived.
    pub kept: Option<u64>,
}

/// An export was sent (as [`crate::Event::ExportData`] pieces).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Exported {
    /// The session's id.
    pub session: String,
    /// A file name for it (`omni-<title>-<id>.md`).
    pub name: String,
    /// Its size in bytes (all pieces together).
    pub bytes: u64,
}

/// A piece of an import was staged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ImportStaged {
    /// The upload's name.
    pub upload: String,
    /// Bytes staged so far.
    pub bytes: u64,
}

/// A session was purged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Purged {
    /// Its id.
    pub session: String,
    /// Its title.
    pub title: String,
    /// Nodes erased.
    pub nodes: u64,
    /// Diagnostic records erased.
    pub records: u64,
}

/// The web app's one-time login link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoginLink {
    /// `http://ADDRESS/login?key=SECRET`: opening it once logs that browser in.
    pub url: String,
    /// Seconds until the link expires unused.
    pub expires_in_s: u64,
}
