//! What the daemon sends back about a request: progress events and exactly one final
//! reply or error, each tagged with the request's id.
//!
//! Variants are encoded by index: append new variants at the end, never reorder.

use serde::{Deserialize, Serialize};

use crate::error::ErrorReply;
use crate::recovery::Recovered;
use crate::replies::Reply;
use crate::view::{Answer, MoveOutcome, Part, RetryNotice, SessionSummary};

/// One message from the daemon about a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponseFrame {
    /// The id of the request this belongs to (0 for connection-level errors).
    pub id: u64,
    /// An event, or the final reply.
    pub response: Response,
}

/// Either progress on a request or its final outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Response {
    /// Progress; more frames follow.
    Event(Event),
    /// The request succeeded; nothing more follows for this id.
    Reply(Reply),
    /// The request failed; nothing more follows for this id.
    Error(ErrorReply),
}

/// Progress while a request runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// The turn to answer (a prompt, or function results) is durably stored as this node,
    /// before the model is asked.
    PromptStored {
        /// The session's full id.
        session: String,
        /// The prompt's node number.
        node: u64,
    },
    /// A piece of the answer's visible text.
    Text(String),
    /// A piece of the model's thought summary.
    Thought(String),
    /// The model asked for a function call.
    FunctionCall(Part),
    /// An attempt failed and will be retried after a wait.
    Retrying(RetryNotice),
    /// The next piece of a diagnostic bundle (JSON text, split anywhere).
    BundleData(Vec<u8>),
    /// Following a session begins: its state now. Every event below follows.
    Attached(SessionSummary),
    /// An answer was stored (to followers).
    Answered(Answer),
    /// A turn was not answered: failed, cancelled, or refused (to followers).
    Failed(ErrorReply),
    /// The head moved (to followers).
    Moved(MoveOutcome),
    /// A recovery choice was applied (to followers).
    Recovered(Recovered),
    /// A suspension was lifted (to followers).
    Resumed {
        /// The session's id.
        session: String,
    },
    /// A function result was stored; these calls still wait (to followers).
    ToolResultStored {
        /// The session's id.
        session: String,
        /// The calls of the model's turn, with which ones are answered.
        calls: Vec<crate::recovery::PendingCall>,
    },
    /// The follower fell this many events behind and missed them; `history` has what was
    /// stored.
    Missed {
        /// How many events were skipped.
        events: u64,
    },
    /// More than one prompt goes out in this turn (a pending prompt was kept and is sent
    /// with the new one): these, oldest first.
    PromptsMerged {
        /// The session's full id.
        session: String,
        /// The prompts' nodes, oldest first.
        prompts: Vec<u64>,
    },
    /// The next piece of a session's export (split anywhere).
    ExportData(Vec<u8>),
    /// A compaction starts: the model is asked to summarise.
    Compacting(crate::context::Compacting),
    /// A compaction was stored (to followers, and to a sender whose send compacted first).
    Compacted(Box<crate::context::Compacted>),
    /// The session's title, model, archive or trash state changed (to followers, who read
    /// its summary again).
    Changed {
        /// The session's id.
        session: String,
    },
    /// The next piece of a final response too large for one frame; the client joins them
    /// when [`Reply::Pieced`] arrives ([`crate::Client::call`] does, and never shows them).
    ReplyPiece(Vec<u8>),
}
