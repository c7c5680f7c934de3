//! Every request a client can make: one struct each, tied to the reply it gets by
//! [`Call`], and listed once in [`with_requests!`], from which the wire enum
//! [`Request`] and the daemon's dispatch are made.
//!
//! The wire encodes [`Request`]'s variants by index: append new requests at the end of the
//! list, never reorder. A request whose struct has the fields a variant used to have keeps
//! its bytes (the golden-bytes tests in `frame.rs` hold them).

use serde::{Deserialize, Serialize};

use crate::export::ExportFormat;
use crate::message::SessionRef;
use crate::ops::{MoveOp, PlaceChange};
use crate::recovery::RecoveryAction;
use crate::replies::ReplyKind;

/// A request tied to its reply: [`crate::Client::request`] sends it and returns exactly
/// this type, and the daemon's handler for it returns it.
pub trait Call: Into<Request> {
    /// What the daemon answers it with.
    type Reply: ReplyKind;
}

/// Hands the list of every request (`Variant(RequestType) => ReplyType,` in wire order)
/// to the macro `$then`: the one table the wire enum and the daemon's dispatch come from.
#[macro_export]
macro_rules! with_requests {
    ($then:ident) => {
        $then! {
            Ping($crate::Ping) => (),
            NewSession($crate::NewSession) => $crate::SessionCreated,
            Send($crate::SendPrompt) => $crate::Answer,
            History($crate::History) => $crate::HistoryView,
            Move($crate::Move) => $crate::MoveOutcome,
            Branches($crate::Branches) => $crate::BranchList,
            Sessions($crate::SessionQuery) => $crate::SessionPage,
            Status($crate::Status) => $crate::DaemonStatus,
            Resume($crate::Resume) => $crate::Resumed,
            ToolResult($crate::ToolResult) => $crate::ToolResultOutcome,
            Recover($crate::Recover) => $crate::RecoverOutcome,
            Session($crate::ShowSession) => $crate::SessionSummary,
            ListErrors($crate::ListErrors) => $crate::ErrorList,
            ExportLogs($crate::ExportLogs) => $crate::Bundle,
            LogPath($crate::LogPath) => $crate::LogFile,
            Replay($crate::Replay) => $crate::ReplayOutcome,
            Cancel($crate::Cancel) => $crate::Cancelled,
            Attach($crate::Attach) => $crate::Detached,
            Retry($crate::Retry) => $crate::Answer,
            SetModel($crate::SetModel) => $crate::SessionSummary,
            Usage($crate::UsageQuery) => $crate::UsageReport,
            Export($crate::Export) => $crate::Exported,
            ImportPart($crate::ImportPart) => $crate::ImportStaged,
            Import($crate::Import) => $crate::ImportOutcome,
            Search($crate::SearchQuery) => $crate::SearchResults,
            Rename($crate::Rename) => $crate::SessionSummary,
            Place($crate::Place) => $crate::SessionSummary,
            Compact($crate::Compact) => $crate::Compacted,
            Purge($crate::Purge) => $crate::Purged,
            HistoryPage($crate::HistoryPage) => $crate::HistoryView,
            Tree($crate::Tree) => $crate::TreeShape,
            WebLink($crate::WebLink) => $crate::LoginLink,
        }
    };
}

/// Makes the wire enum and ties each request to its reply.
macro_rules! define_requests {
    ($($variant:ident($call:ty) => $reply:ty,)*) => {
        /// Everything a client can ask of the daemon, as it goes on the wire: one variant
        /// per request struct (see [`with_requests!`]).
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        pub enum Request {
            $(
                #[doc = concat!("The `", stringify!($variant), "` request.")]
                $variant($call),
            )*
        }

        $(
            impl From<$call> for Request {
                fn from(call: $call) -> Self {
                    Self::$variant(call)
                }
            }

            impl Call for $call {
                type Reply = $reply;
            }
        )*
    };
}

with_requests!(define_requests);

/// A request and the id its events and reply will carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestFrame {
    /// Chosen by the client; echoed in every [`crate::ResponseFrame`] for this request.
    pub id: u64,
    /// What the client asks for.
    pub request: Request,
}

/// Liveness check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ping;

/// Creates a session, which becomes the current one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewSession {
    /// Function declarations (a JSON array) the model may call in this session.
    pub tools_json: Option<String>,
    /// The model it asks (`MODEL` or `PROVIDER/MODEL`); `None`: the daemon's.
    #[serde(default)]
    pub model: Option<String>,
    /// Models asked in turn when its own cannot answer; empty: the daemon's chain.
    #[serde(default)]
    pub fallback: Vec<String>,
    /// A system instruction sent with every request.
    #[serde(default)]
    pub system: Option<String>,
}

/// Sends a prompt and streams the answer as events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendPrompt {
    /// The session to continue.
    pub session: SessionRef,
    /// The user's prompt.
    pub prompt: String,
    /// What to do with a prompt a failed or cancelled send left pending at the head:
    /// `false` (the default) keeps it, and both are sent (the reply and the
    /// [`crate::Event::PromptsMerged`] event name them); `true` sends the new prompt in its
    /// place (the old one stays in the tree, off the path). Replacing is also a way out of
    /// *needs recovery* when what failed is that prompt.
    #[serde(default)]
    pub replace: bool,
}

/// The session's transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// The session to show.
    pub session: SessionRef,
    /// Only the nodes the model will see next (the path to the head).
    pub active_only: bool,
}

/// Moves the session's head (undo, redo, back, checkout).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    /// The session to change.
    pub session: SessionRef,
    /// Which move.
    pub op: MoveOp,
}

/// Every leaf of the session's tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branches {
    /// The session to show.
    pub session: SessionRef,
}

/// The daemon's health and configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status;

/// Lifts a session's suspension (after repeated failed sends); the history is untouched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resume {
    /// The session to resume.
    pub session: SessionRef,
}

/// Submits the result of one pending function call. When every pending call has one, the
/// results are sent and the continuation streams back as for [`SendPrompt`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The session.
    pub session: SessionRef,
    /// The call's id, to pick one of several calls of the same function.
    pub call_id: Option<String>,
    /// The function's name.
    pub name: String,
    /// The result, as JSON text.
    pub response_json: String,
}

/// Applies one way out of *needs recovery*.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recover {
    /// The session.
    pub session: SessionRef,
    /// Which way.
    pub action: RecoveryAction,
}

/// One session's summary and state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShowSession {
    /// The session.
    pub session: SessionRef,
}

/// The recorded errors, newest first (of one session, or all).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListErrors {
    /// Only this session's.
    pub session: Option<SessionRef>,
}

/// Sends a diagnostic bundle back as [`crate::Event::BundleData`] pieces, then its
/// [`crate::Bundle`]. The daemon never writes it anywhere: the client does, with its
/// user's own permissions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportLogs {
    /// The session whose errors and transcript to bundle (default: the current one).
    pub session: Option<SessionRef>,
    /// Only this error (and its session's transcript).
    pub error: Option<String>,
}

/// The path of `api_errors.log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogPath;

/// Sends a recorded failing request again, touching no session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replay {
    /// The recorded error's id.
    pub error: String,
}

/// Cancels the session's answer in flight. The partial answer is kept as an interrupted
/// node, out of the context; the head stays on the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cancel {
    /// The session.
    pub session: SessionRef,
}

/// Follows a session: [`crate::Event::Attached`], then every event of every request and
/// each stored change as they happen, until the client disconnects (any byte it sends
/// ends the request) or the daemon stops. It never ends in a reply (see
/// [`crate::Detached`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attach {
    /// The session.
    pub session: SessionRef,
}

/// Answers the turn at the head again, as it is: the pending prompt (or function results)
/// of a send that failed. Streams like [`SendPrompt`]; nothing new is stored before the
/// answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retry {
    /// The session.
    pub session: SessionRef,
}

/// Switches the model the session asks, from its next send on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetModel {
    /// The session.
    pub session: SessionRef,
    /// `MODEL` (of the daemon's default provider) or `PROVIDER/MODEL`.
    pub model: String,
}

/// Sums the tokens of stored answers, and their cost where the price table knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageQuery {
    /// Only answers from this time on (ms since the epoch).
    pub since_ms: Option<u64>,
    /// One row per session, model or day.
    pub by: crate::usage::UsageGrouping,
    /// Only this session's answers.
    pub session: Option<SessionRef>,
}

/// Sends a session's export back as [`crate::Event::ExportData`] pieces, then its
/// [`crate::Exported`]. The daemon writes nothing: the client does, with its user's
/// permissions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    /// The session.
    pub session: SessionRef,
    /// Markdown, JSON or JSON lines.
    pub format: ExportFormat,
    /// Markdown: reverted turns too, struck through (JSON formats hold every node).
    pub all: bool,
}

/// Stages one piece of an import too big for one frame; the [`Import`] naming the same
/// `upload` adds its own bytes after the staged ones and imports the whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportPart {
    /// A name the client chose for this upload (random, so no two clients share one).
    pub upload: String,
    /// The next piece of the session's JSON.
    pub data: Vec<u8>,
}

/// Imports one session (Omni's export JSON, [`crate::ExportedSession`]) as one atomic
/// store change; the same content imported again adds nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// The staged pieces that come before `data`, if any.
    pub upload: Option<String>,
    /// The session's JSON (or its last piece).
    pub data: Vec<u8>,
    /// The tool it came from (`omni`, `claude-code`, `gemini-cli`, `codex`).
    pub tool: String,
    /// The file it was read from, for its origin.
    pub file: String,
}

/// Names a session (its first prompt no longer sets the title).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rename {
    /// The session.
    pub session: SessionRef,
    /// The new title: one line, not empty.
    pub title: String,
}

/// Moves a session to or from the archive or the trash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// The session.
    pub session: SessionRef,
    /// Where it goes.
    pub change: PlaceChange,
}

/// Summarises the context up to its last `keep` rounds into a summary node that takes
/// their place in the model's context; the covered nodes stay in the tree. Streams a
/// [`crate::Event::Compacting`] and retries as they happen. `undo` right after it returns
/// to the full context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compact {
    /// The session.
    pub session: SessionRef,
    /// Rounds (a prompt with its answer and tool chain) kept whole after the summary;
    /// `None`: 2.
    pub keep: Option<u32>,
    /// What the summary should keep in mind, added to Omni's own instructions.
    pub instructions: Option<String>,
}

/// Erases a session for good: from the store, the proxy's chains and the diagnostic
/// records (and, at the daemon's next start, from every file of the data directory).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Purge {
    /// The session (a full id, a prefix or a title prefix; never `Current` implicitly: the
    /// client names it).
    pub session: SessionRef,
}

/// A page of the transcript: the latest `limit` entries before node `before` (all of them
/// when `None`), read without reading the rest of the session; its `earlier` asks for the
/// page before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryPage {
    /// The session to show.
    pub session: SessionRef,
    /// Only the nodes the model will see next (the path to the head).
    pub active_only: bool,
    /// Only entries of nodes numbered below this.
    pub before: Option<u64>,
    /// At most this many entries.
    pub limit: u32,
}

/// The shape of the session's whole tree (no texts): what a graph of it needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tree {
    /// The session to show.
    pub session: SessionRef,
}

/// A one-time link that logs a browser into the web app (`--web-listen`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebLink;
