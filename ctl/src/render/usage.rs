//! Token counts and cost for humans: one line for a session's or a day's total, and the
//! table `omnictl usage` prints.

use omni_proto::{UsageGrouping, UsageReport, UsageTotals};

use super::width;

/// A count with thousands separated: `1,048,576`.
pub fn count(n: u64) -> String {
    omni_proto::thousands(n)
}

/// An amount in the price table's currency, to four decimals (`0.0123`).
pub fn cost(totals: &UsageTotals) -> Option<String> {
    let amount = totals.cost?.0;
    let partial = if totals.unpriced.is_empty() { "" } else { "+" };
    Some(format!("{amount:.4}{partial}"))
}

/// `1,234 in (200 cached) · 56 out · 7 thinking · cost 0.0012`: what is not there is left
/// out; `+` after the cost says some models have no price.
pub fn line(totals: &UsageTotals) -> String {
    let mut parts = vec![match totals.cached {
        0 => format!("{} in", count(totals.input)),
        cached => format!("{} in ({} cached)", count(totals.input), count(cached)),
    }];
    parts.push(format!("{} out", count(totals.output)));
    if totals.thinking > 0 {
        parts.push(format!("{} thinking", count(totals.thinking)));
    }
    if let Some(cost) = cost(totals) {
        parts.push(format!("cost {cost}"));
    }
    parts.join(" · ")
}

/// The report as a table: one row per session, model or day, then the total; on a
/// terminal `columns` wide, session titles are cut to fit.
pub fn table(report: &UsageReport, columns: Option<usize>) -> String {
    let first = match report.by {
        UsageGrouping::Session => "SESSION",
        UsageGrouping::Model => "MODEL",
        UsageGrouping::Day => "DAY",
    };
    let key_width = report
        .rows
        .iter()
        .map(|row| key(report.by, &row.key).len())
        .chain([first.len(), "total".len()])
        .max()
        .unwrap_or(0);
    let row = |key: &str, totals: &UsageTotals, label: &str| {
        let start = format!(
            "{key:<key_width$}  {:>7}  {:>13}  {:>11}  {:>11}  {:>10}  {:>10}",
            count(totals.answers),
            count(totals.input),
            count(totals.cached),
            count(totals.output),
            count(totals.thinking),
            cost(totals).unwrap_or_else(|| "-".into()),
        );
        let room = columns.map_or(usize::MAX, |c| c.saturating_sub(start.len() + 2));
        match label {
            "" => start,
            label => format!("{start}  {}", width::cut(label, room)),
        }
    };
    let mut out = format!(
        "{first:<key_width$}  {:>7}  {:>13}  {:>11}  {:>11}  {:>10}  {:>10}{}\n",
        "ANSWERS",
        "INPUT",
        "CACHED",
        "OUTPUT",
        "THINKING",
        "COST",
        if report.by == UsageGrouping::Session {
            "  TITLE"
        } else {
            ""
        },
    );
    for entry in &report.rows {
        out.push_str(&row(
            key(report.by, &entry.key),
            &entry.totals,
            &entry.label,
        ));
        out.push('\n');
    }
    out.push_str(&row("total", &report.total, ""));
    out.push('\n');
    if !report.total.unpriced.is_empty() {
        out.push_str(&format!(
            "no price for {} (add [prices.\"MODEL\"] to omnid's configuration)\n",
            report.total.unpriced.join(", ")
        ));
    }
    out
}

/// A row's key as shown: a session by the first 8 characters of its id.
fn key(by: UsageGrouping, key: &str) -> &str {
    match by {
        UsageGrouping::Session => key.get(..8).unwrap_or(key),
        UsageGrouping::Model | UsageGrouping::Day => key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_leaves_out_what_is_not_there_and_marks_a_partial_cost() {
        let mut totals = UsageTotals {
            answers: 2,
            input: 1_234,
            output: 56,
            ..UsageTotals::default()
        };
        assert_eq!(line(&totals), "1,234 in · 56 out");
        totals.cached = 200;
        totals.thinking = 7;
        totals.cost = Some(omni_proto::Cost(0.00123));
        totals.unpriced = vec!["local/qwen".into()];
        assert_eq!(
            line(&totals),
            "1,234 in (200 cached) · 56 out · 7 thinking · cost 0.0012+"
        );
    }
}
