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
    /// Where the page starts: the sessions listed after this place (a page's
    /// `next_before`), or those last active before a time.
    pub before: Option<Before>,
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
    /// When more match: the `before` that asks for the next page (a [`Before::Place`]
    /// written as text).
    pub next_before: Option<String>,
}

/// Where a page of sessions starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Before {
    /// Sessions last active before this time (ms since the epoch).
    Time(u64),
    /// Sessions listed after this one: last active before `ms`, or at `ms` with a smaller
    /// id. Sessions active in the same millisecond never tie, so paging skips none.
    Place {
        /// The last activity of the last session of the page before.
        ms: u64,
        /// Its id.
        session: String,
    },
}

impl Before {
    /// A place as a page's `next_before` writes it: `MS.ID`.
    pub fn place_text(ms: u64, session: &str) -> String {
        format!("{ms}.{session}")
    }

    /// Reads a page's `next_before` (`MS.ID`, the id 32 hex digits with or without
    /// hyphens); `None` for any other text (a time, which the caller reads its own way).
    pub fn parse_place(text: &str) -> Option<Before> {
        let (ms, session) = text.split_once('.')?;
        let ms = ms.parse().ok()?;
        let hex: String = session.chars().filter(|c| *c != '-').collect();
        let is_id = hex.len() == 32 && hex.chars().all(|c| c.is_ascii_hexdigit());
        is_id.then(|| Before::Place {
            ms,
            session: session.to_ascii_lowercase(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_read_back_and_nothing_else_is_taken_for_one() {
        let id = "0f8e5a8c-1b2d-4e3f-9a0b-1c2d3e4f5a6b";
        let text = Before::place_text(1_700_000_000_000, id);
        assert_eq!(
            Before::parse_place(&text),
            Some(Before::Place {
                ms: 1_700_000_000_000,
                session: id.into()
            })
        );
        for not_a_place in ["1700000000000", "2026-11-01", "12:00:00.5", "7d", "1.2", ""] {
            assert_eq!(Before::parse_place(not_a_place), None, "{not_a_place}");
        }
    }
}
