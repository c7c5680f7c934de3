//! Token usage summed over stored answers: `omnictl usage`'s report (report.rs) and the
//! running count of today's answers `status` shows (today.rs). Counts are per model
//! ([`ModelUsage`]), so the price table can turn them into cost at the edge.
//!
//! A session's record keeps its own totals, updated with every committed answer; a record
//! from before it did (store format 4 and older) has none, and its nodes are read instead.

mod report;
mod today;

pub use report::{Query, Row, report};
pub use today::UsageToday;

use crate::model::{ModelUsage, NodeRecord, SessionRecord};

/// A session's totals: its record's, or, for a record from before they were kept, summed
/// from its nodes.
pub fn of_session(record: &SessionRecord, nodes: &[NodeRecord]) -> Vec<ModelUsage> {
    if !record.usage.is_empty() {
        return record.usage.clone();
    }
    let mut totals = Vec::new();
    for info in nodes.iter().filter_map(|node| node.model.as_ref()) {
        ModelUsage::count(&mut totals, info);
    }
    totals
}

/// Every model's tokens together.
pub fn sum(totals: &[ModelUsage]) -> ModelUsage {
    let mut all = ModelUsage::default();
    for usage in totals {
        all.answers += usage.answers;
        all.input += usage.input;
        all.cached += usage.cached;
        all.output += usage.output;
        all.thinking += usage.thinking;
    }
    all
}
