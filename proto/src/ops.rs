//! What a client asks the head of a session to do: shared by requests and their replies.

use serde::{Deserialize, Serialize};

/// A head move a client can ask for. Every move is appended to the session's move log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MoveOp {
    /// Drop the answer to the latest prompt, keep the prompt.
    Undo,
    /// Take back the last undo-type move.
    Redo,
    /// Drop the latest whole round (prompt, answer and any tool chain).
    Back,
    /// Continue from the given node (0 = the empty start of the conversation).
    Checkout {
        /// The node that becomes the head.
        node: u64,
    },
}

/// Where a session is kept: in the listings, in the archive (hidden from listings, still
/// searchable), or in the trash (gone from listings and search until restored).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PlaceChange {
    /// Hide it from listings.
    Archive,
    /// Show it in listings again.
    Unarchive,
    /// Move it to the trash (kept for `trash.keep_days`, then purged).
    Delete,
    /// Take it out of the trash.
    Restore,
}
