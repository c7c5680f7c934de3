//! The messages a client and the daemon exchange.
//!
//! Variants are encoded by index: append new variants at the end, never reorder.

use serde::{Deserialize, Serialize};

use crate::export::ExportFormat;
use crate::listing::SessionQuery;
use crate::ops::{MoveOp, PlaceChange};
use crate::recovery::RecoveryAction;
use crate::search::SearchQuery;

/// First frame a client sends. Its layout is frozen across protocol versions so that a
/// mismatch is always reported clearly instead of failing to decode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The client's [`crate::limits::PROTOCOL_VERSION`].
    pub protocol_version: u32,
    /// Free-form client name and version, for the daemon's logs.
    pub client: String,
}

/// The daemon's answer to [`Hello`]. Frozen like [`Hello`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HelloReply {
    /// The daemon speaks the client's protocol; requests may follow.
    Welcome {
        /// The daemon's protocol version (equal to the client's).
        protocol_version: u32,
        /// The daemon's package version.
        daemon_version: String,
    },
    /// The daemon cannot talk to this client; the connection closes after this frame.
    Rejected {
        /// The daemon's protocol version.
        protocol_version: u32,
        /// Why, and what to do about it.
        message: String,
    },
}

/// Which session a request is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SessionRef {
    /// The most recently used session.
    Current,
    /// A session id, a unique prefix of one, or a unique prefix of its title.
    Id(String),
}

/// A request and the id its events and reply will carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestFrame {
    /// Chosen by the client; echoed in every [`ResponseFrame`] for this request.
    pub id: u64,
    /// What the client asks for.
    pub request: Request,
}

/// Everything a client can ask of the daemon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// Liveness check; answered with [`Reply::Pong`].
    Ping,
    /// Creates a session, which becomes the current one.
    NewSession {
        /// Function declarations (a JSON array) the model may call in this session.
        tools_json: Option<String>,
        /// The model it asks (`MODEL` or `PROVIDER/MODEL`); `None`: the daemon's.
        #[serde(default)]
        model: Option<String>,
        /// Models asked in turn when its own cannot answer; empty: the daemon's chain.
        #[serde(default)]
        fallback: Vec<String>,
        /// A system instruction sent with every request.
        #[serde(default)]
        system: Option<String>,
    },
    /// Sends a prompt and streams the answer as events.
    Send {
        /// The session to continue.
        session: SessionRef,
        /// The user's prompt.
        prompt: String,
        /// What to do with a prompt a failed or cancelled send left pending at the head:
        /// `false` (the default) keeps it, and both are sent (the reply and the
        /// [`Event::PromptsMerged`] event name them); `true` sends the new prompt in its
        /// place (the old one stays in the tree, off the path). Replacing is also a way
        /// out of *needs recovery* when what failed is that prompt.
        #[serde(default)]
        replace: bool,
    },
    /// The session's transcript.
    History {
        /// The session to show.
        session: SessionRef,
        /// Only the nodes the model will see next (the path to the head).
        active_only: bool,
    },
    /// Moves the session's head (undo, redo, back, checkout).
    Move {
        /// The session to change.
        session: SessionRef,
        /// Which move.
        op: MoveOp,
    },
    /// Every leaf of the session's tree.
    Branches {
        /// The session to show.
        session: SessionRef,
    },
    /// A page of sessions, last active first.
    Sessions {
        /// Which, and how many.
        query: SessionQuery,
    },
    /// The daemon's health and configuration.
    Status,
    /// Lifts a session's suspension (after repeated failed sends); the history is untouched.
    Resume {
        /// The session to resume.
        session: SessionRef,
    },
    /// Submits the result of one pending function call. When every pending call has one,
    /// the results are sent and the continuation streams back as for `Send`.
    ToolResult {
        /// The session.
        session: SessionRef,
        /// The call's id, to pick one of several calls of the same function.
        call_id: Option<String>,
        /// The function's name.
        name: String,
        /// The result, as JSON text.
        response_json: String,
    },
    /// Applies one way out of *needs recovery*.
    Recover {
        /// The session.
        session: SessionRef,
        /// Which way.
        action: RecoveryAction,
    },
    /// One session's summary and state.
    Session {
        /// The session.
        session: SessionRef,
    },
    /// The recorded errors, newest first (of one session, or all).
    ListErrors {
        /// Only this session's.
        session: Option<SessionRef>,
    },
    /// Sends a diagnostic bundle back as [`Event::BundleData`] pieces, then
    /// [`Reply::Bundle`]. The daemon never writes it anywhere: the client does, with its
    /// user's own permissions.
    ExportLogs {
        /// The session whose errors and transcript to bundle (default: the current one).
        session: Option<SessionRef>,
        /// Only this error (and its session's transcript).
        error: Option<String>,
    },
    /// The path of `api_errors.log`.
    LogPath,
    /// Sends a recorded failing request again, touching no session.
    Replay {
        /// The recorded error's id.
        error: String,
    },
    /// Cancels the session's answer in flight. The partial answer is kept as an
    /// interrupted node, out of the context; the head stays on the prompt.
    Cancel {
        /// The session.
        session: SessionRef,
    },
    /// Follows a session: [`Event::Attached`], then every event of every request and each
    /// stored change as they happen, until the client disconnects (any byte it sends ends
    /// the request) or the daemon stops.
    Attach {
        /// The session.
        session: SessionRef,
    },
    /// Answers the turn at the head again, as it is: the pending prompt (or function
    /// results) of a send that failed. Streams like [`Request::Send`]; nothing new is
    /// stored before the answer.
    Retry {
        /// The session.
        session: SessionRef,
    },
    /// Switches the model the session asks, from its next send on; answered with the
    /// session's [`Reply::Session`].
    SetModel {
        /// The session.
        session: SessionRef,
        /// `MODEL` (of the daemon's default provider) or `PROVIDER/MODEL`.
        model: String,
    },
    /// Sums the tokens of stored answers, and their cost where the price table knows it;
    /// answered with [`Reply::Usage`].
    Usage {
        /// Only answers from this time on (ms since the epoch).
        since_ms: Option<u64>,
        /// One row per session, model or day.
        by: crate::usage::UsageGrouping,
        /// Only this session's answers.
        session: Option<SessionRef>,
    },
    /// Sends a session's export back as [`Event::ExportData`] pieces, then
    /// [`Reply::Exported`]. The daemon writes nothing: the client does, with its user's
    /// permissions.
    Export {
        /// The session.
        session: SessionRef,
        /// Markdown, JSON or JSON lines.
        format: ExportFormat,
        /// Markdown: reverted turns too, struck through (JSON formats hold every node).
        all: bool,
    },
    /// Stages one piece of an import too big for one frame; the [`Request::Import`] naming
    /// the same `upload` adds its own bytes after the staged ones and imports the whole.
    ImportPart {
        /// A name the client chose for this upload (random, so no two clients share one).
        upload: String,
        /// The next piece of the session's JSON.
        data: Vec<u8>,
    },
    /// Imports one session (Omni's export JSON, [`crate::ExportedSession`]) as one atomic
    /// store change; the same content imported again adds nothing.
    Import {
        /// The staged pieces that come before `data`, if any.
        upload: Option<String>,
        /// The session's JSON (or its last piece).
        data: Vec<u8>,
        /// The tool it came from (`omni`, `claude-code`, `gemini-cli`, `codex`).
        tool: String,
        /// The file it was read from, for its origin.
        file: String,
    },
    /// Full-text search over every session's nodes, every branch included; answered with
    /// [`Reply::Search`].
    Search(SearchQuery),
    /// Names a session (its first prompt no longer sets the title); answered with the
    /// session's [`Reply::Session`].
    Rename {
        /// The session.
        session: SessionRef,
        /// The new title: one line, not empty.
        title: String,
    },
    /// Moves a session to or from the archive or the trash; answered with the session's
    /// [`Reply::Session`].
    Place {
        /// The session.
        session: SessionRef,
        /// Where it goes.
        change: PlaceChange,
    },
    /// Summarises the context up to its last `keep` rounds into a summary node that takes
    /// their place in the model's context; the covered nodes stay in the tree. Streams a
    /// [`Event::Compacting`] and retries as they happen; answered with
    /// [`Reply::Compacted`]. `undo` right after it returns to the full context.
    Compact {
        /// The session.
        session: SessionRef,
        /// Rounds (a prompt with its answer and tool chain) kept whole after the summary;
        /// `None`: 2.
        keep: Option<u32>,
        /// What the summary should keep in mind, added to Omni's own instructions.
        instructions: Option<String>,
    },
    /// Erases a session for good: from the store, the proxy's chains and the diagnostic
    /// records (and, at the daemon's next start, from every file of the data directory).
    Purge {
        /// The session (a full id, a prefix or a title prefix; never `Current` implicitly:
        /// the client names it).
        session: SessionRef,
    },
    /// A page of the transcript: the latest `limit` entries before node `before` (all of
    /// them when `None`), read without reading the rest of the session; answered with
    /// [`Reply::History`], whose `earlier` asks for the page before it.
    HistoryPage {
        /// The session to show.
        session: SessionRef,
        /// Only the nodes the model will see next (the path to the head).
        active_only: bool,
        /// Only entries of nodes numbered below this.
        before: Option<u64>,
        /// At most this many entries.
        limit: u32,
    },
    /// The shape of the session's whole tree (no texts): what a graph of it needs;
    /// answered with [`Reply::Tree`].
    Tree {
        /// The session to show.
        session: SessionRef,
    },
    /// A one-time link that logs a browser into the web app (`--web-listen`); answered with
    /// [`Reply::WebLink`].
    WebLink,
}
