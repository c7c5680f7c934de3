//! Which sessions a listing shows (`omnictl sessions`, `GET /v1/sessions`) and one page of
//! them.

use serde::{Deserialize, Serialize};

use crate::origin::OriginKind;
use crate::view::SessionSummary;

/// The most sessions one page holds.
pub const MAX_PAGE: u32 = 1000;

/// Which of the kept sessions a listing shows.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Shown {
    /// Those neither archived nor in the trash.
    #[default]
    Listed,
    /// Those not in the trash, archived ones included.
    WithArchived,
    /// Only those in the trash.
    Trash,
}

/// What a listing asks for: a page of sessions, last active first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionQuery {
    /// At most this many (default 50, at most [`MAX_PAGE`]).
    pub limit: Option<u32>,
    /// Only sessions last active before this, ms since the epoch (the page after one
    /// whose `next_before` this is).
    pub before_ms: Option<u64>,
    /// Only sessions last active at or after this, ms since the epoch.
    pub since_ms: Option<u64>,
    /// Only sessions of this origin.
    pub origin: Option<OriginKind>,
    /// Only sessions that ask, or were answered by, a model whose name contains this.
    pub model: Option<String>,
    /// Listed, with the archived, or the trash.
    pub shown: Shown,
}

impl SessionQuery {
    /// The page size asked, within bounds.
    pub fn page_size(&self) -> usize {
        self.limit.unwrap_or(50).clamp(1, MAX_PAGE) as usize
    }
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SessionPage {
    /// The sessions, last active first.
    pub sessions: Vec<SessionSummary>,
    /// When more match: the `before` that asks for the next page.
    pub next_before: Option<u64>,
}
