//! Token usage and cost as clients see them: a session's running total (on every answer,
//! in `history` and `sessions`), today's (in `status`) and `omnictl usage`'s report.

use serde::{Deserialize, Serialize};

/// An amount of money in the price table's currency (its prices are per million tokens).
/// Compared bit for bit, so the wire types that carry it stay comparable.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct Cost(pub f64);

impl PartialEq for Cost {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Cost {}

/// Tokens summed over some answers, and what they cost where the price table knows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UsageTotals {
    /// Answers counted.
    pub answers: u64,
    /// Tokens of the contexts sent (cached ones included).
    pub input: u64,
    /// Of those, tokens read from the provider's prompt cache.
    pub cached: u64,
    /// Tokens of the answers (thinking not included).
    pub output: u64,
    /// Tokens spent thinking.
    pub thinking: u64,
    /// What the priced models' tokens cost; `None` when no model counted has a price.
    pub cost: Option<Cost>,
    /// Models counted here that the price table has no price for (their tokens are in the
    /// counts, not in the cost).
    pub unpriced: Vec<String>,
}

/// How `omnictl usage` groups its rows.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum UsageGrouping {
    /// One row per session.
    #[default]
    Session,
    /// One row per model (`PROVIDER/MODEL`).
    Model,
    /// One row per local calendar day.
    Day,
}

/// One row of a usage report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UsageRow {
    /// The session's id, the model (`PROVIDER/MODEL`) or the day (`2026-11-25`).
    pub key: String,
    /// The session's title (empty for the other groupings).
    pub label: String,
    /// Its tokens and cost.
    pub totals: UsageTotals,
}

/// What `omnictl usage` prints: rows, largest cost (then most tokens) first, and their sum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UsageReport {
    /// How the rows are grouped.
    pub by: UsageGrouping,
    /// Only answers from this time on (ms since the epoch), if asked.
    pub since_ms: Option<u64>,
    /// The rows (days in date order, newest first).
    pub rows: Vec<UsageRow>,
    /// Every row together.
    pub total: UsageTotals,
}
