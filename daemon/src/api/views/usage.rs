//! Token counts as clients see them: summed over models, with their cost where the price
//! table knows it. The only place the price table meets the counts.

use omni_proto::{Cost, UsageGrouping, UsageReport, UsageRow, UsageTotals};

use crate::config::Prices;
use crate::model::ModelUsage;
use crate::usage::{Row, sum};

/// Per-model counts as one total, with the cost of the priced models.
pub fn totals(usage: &[ModelUsage], prices: &Prices) -> UsageTotals {
    let all = sum(usage);
    let mut cost = None;
    let mut unpriced = Vec::new();
    for model in usage {
        match prices.cost(model) {
            Some(amount) => *cost.get_or_insert(0.0) += amount,
            None => unpriced.push(model.model.clone()),
        }
    }
    UsageTotals {
        answers: all.answers,
        input: all.input,
        cached: all.cached,
        output: all.output,
        thinking: all.thinking,
        cost: cost.map(Cost),
        unpriced,
    }
}

/// `omnictl usage`'s report: days newest first; sessions and models by cost, then
/// tokens, largest first.
pub fn report(
    rows: Vec<Row>,
    by: UsageGrouping,
    since_ms: Option<u64>,
    prices: &Prices,
) -> UsageReport {
    let mut all = Vec::new();
    for row in &rows {
        for usage in &row.usage {
            ModelUsage::add(&mut all, usage);
        }
    }
    let mut rows: Vec<UsageRow> = rows
        .into_iter()
        .map(|row| UsageRow {
            totals: totals(&row.usage, prices),
            key: row.key,
            label: row.label,
        })
        .collect();
    match by {
        UsageGrouping::Day => rows.sort_by(|a, b| b.key.cmp(&a.key)),
        UsageGrouping::Session | UsageGrouping::Model => rows.sort_by(|a, b| {
            let cost = |row: &UsageRow| row.totals.cost.map_or(0.0, |c| c.0);
            let tokens = |row: &UsageRow| row.totals.input + row.totals.output;
            cost(b)
                .total_cmp(&cost(a))
                .then(tokens(b).cmp(&tokens(a)))
                .then(a.key.cmp(&b.key))
        }),
    }
    UsageReport {
        by,
        since_ms,
        rows,
        total: totals(&all, prices),
    }
}
