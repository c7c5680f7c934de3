//! Full-text search: what a search asks and the hits it answers with.

use serde::{Deserialize, Serialize};

use crate::view::{RevertReason, Role};

/// A full-text search over every node of every session, every branch included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchQuery {
    /// The words. Every word must match; `"a phrase"`, `a OR b` and `-word` work too.
    pub text: String,
    /// Only this session's nodes (an id, a unique prefix, or `current`).
    pub session: Option<crate::SessionRef>,
    /// Only nodes of this role.
    pub role: Option<Role>,
    /// Only nodes made at or after this time (ms since the epoch).
    pub since_ms: Option<u64>,
    /// At most this many hits (1 to 1000).
    pub limit: u32,
    /// Also search archived sessions (sessions in the trash never are).
    pub archived: bool,
}

/// A match in a snippet: bytes `start..end` of the snippet's UTF-8 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Highlight {
    /// The match's first byte.
    pub start: u32,
    /// The byte after its last.
    pub end: u32,
}

/// One node that matches, best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchHit {
    /// The session's full id.
    pub session: String,
    /// The session's title.
    pub title: String,
    /// The node's number (`omnictl checkout N`, `history --around N`).
    pub node: u64,
    /// Who produced it.
    pub role: Role,
    /// When it was made, ms since the epoch.
    pub created_at_ms: u64,
    /// A piece of the node's text around the best match.
    pub snippet: String,
    /// Where the matches are in `snippet`.
    pub highlights: Vec<Highlight>,
    /// Not on the path to the session's head now (undone, rewound, another branch, ...).
    pub reverted: bool,
    /// Why it is out of the context, when it is.
    pub why_reverted: Option<RevertReason>,
}

/// The answer to a search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchResults {
    /// The hits, best first.
    pub hits: Vec<SearchHit>,
    /// False while the index is still being built from the store after a start (hits may
    /// be missing until it is).
    pub complete: bool,
}
