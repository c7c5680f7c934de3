//! The context window for humans: how full a session's context is ("context 61% of
//! 1,048,576"), what a compaction is doing and what it did, and how a summary node and
//! the nodes it covers are named in listings.

use omni_proto::{Compacted, Compacting, Compaction, ContextGauge, Entry};

use super::usage::count;

/// How many tokens the gauge holds, `~` when part of it is an estimate.
fn tokens(gauge: &ContextGauge) -> String {
    let approx = if gauge.estimated > 0 { "~" } else { "" };
    format!("{approx}{}", count(gauge.tokens))
}

/// `context 61% of 1,048,576`, or `context ~12,345 tokens (window unknown)` when the
/// model's window is not known (it is never guessed).
pub fn gauge(gauge: &ContextGauge) -> String {
    match (gauge.percent, gauge.window) {
        (Some(percent), Some(window)) => format!("context {percent}% of {}", count(window)),
        _ => format!("context {} tokens (window unknown)", tokens(gauge)),
    }
}

/// `81% → 12% of 1,048,576`: the context before and after a compaction.
fn before_after(before: &ContextGauge, after: &ContextGauge) -> String {
    match (before.percent, after.percent, after.window) {
        (Some(was), Some(now), Some(window)) => {
            format!("context {was}% → {now}% of {}", count(window))
        }
        _ => format!(
            "context {} → {} tokens (window unknown)",
            tokens(before),
            tokens(after)
        ),
    }
}

/// Node numbers as a span: `node 5`, `nodes 1–16`, or `12 nodes, 1–30` when the numbers
/// between are not all among them (another branch's nodes were made in between).
pub fn span(nodes: &[u64]) -> String {
    match nodes {
        [] => "no nodes".to_string(),
        [one] => format!("node {one}"),
        [first, .., last] => {
            let (low, high) = (*first.min(last), *first.max(last));
            if high - low + 1 == nodes.len() as u64 {
                format!("nodes {low}–{high}")
            } else {
                format!("{} nodes, {low}–{high}", nodes.len())
            }
        }
    }
}

/// The line shown while a compaction starts: `compacting 14 nodes with gemini/flash…`.
pub fn compacting(compacting: &Compacting) -> String {
    let nodes = match compacting.covers {
        1 => "1 node".to_string(),
        n => format!("{n} nodes"),
    };
    let why = match compacting.why.as_str() {
        "auto" => " (the context passed context.compact_at)",
        "recovery" => " (recovery)",
        _ => "",
    };
    format!("compacting {nodes} with {}{why}…", compacting.model)
}

/// What a compaction did, and how to go back: `undo` names the command that returns to
/// the full context where this is shown (`omnictl undo`, `/undo`).
pub fn compacted(compacted: &Compacted, undo: &str) -> String {
    format!(
        "compacted {} into node {} (summary); {}; `{undo}` returns to the full context",
        span(&compacted.covers),
        compacted.node,
        before_after(&compacted.before, &compacted.after)
    )
}

/// The rule above a summary: what it covers and how to get them back.
pub fn summary_rule(summary: &Entry, compaction: &Compaction) -> String {
    let checkout = match summary.parent {
        Some(parent) => format!(", or `checkout {parent}`,"),
        None => String::new(),
    };
    format!(
        "── summary of {} (compacted; `undo` right after it{checkout} returns to them) ──",
        span(&compaction.covers)
    )
}

/// The summary among `entries` that covers `node`, if it is there.
pub fn summary_covering(entries: &[Entry], node: u64) -> Option<u64> {
    entries
        .iter()
        .find(|e| {
            e.compaction
                .as_ref()
                .is_some_and(|c| c.covers.contains(&node))
        })
        .map(|e| e.id)
}

/// One line for a run of compacted entries, in place of their text.
pub fn folded(run: &[u64], summary: Option<u64>) -> String {
    let into = summary
        .map(|node| format!(" into node {node}"))
        .unwrap_or_default();
    format!("{} compacted{into}: history --full shows them", span(run))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use omni_proto::{ModelInfo, WindowSource};

    /// A gauge measured exactly (no estimate), for other renderers' tests too.
    pub(crate) fn gauge(tokens: u64, window: Option<u64>) -> ContextGauge {
        measured(tokens, window)
    }

    fn measured(tokens: u64, window: Option<u64>) -> ContextGauge {
        ContextGauge {
            tokens,
            estimated: 0,
            model: "gemini/flash".into(),
            window,
            window_source: window.map(|_| WindowSource::Api),
            percent: window.map(|w| (tokens * 100 / w) as u32),
            warning: None,
        }
    }

    #[test]
    fn the_gauge_says_the_share_of_a_known_window_and_never_guesses_one() {
        assert_eq!(
            super::gauge(&measured(640_000, Some(1_048_576))),
            "context 61% of 1,048,576"
        );
        let mut unknown = measured(12_345, None);
        assert_eq!(
            super::gauge(&unknown),
            "context 12,345 tokens (window unknown)"
        );
        unknown.estimated = 45;
        assert_eq!(
            super::gauge(&unknown),
            "context ~12,345 tokens (window unknown)"
        );
    }

    #[test]
    fn spans_name_runs_and_say_when_numbers_are_missing() {
        assert_eq!(span(&[]), "no nodes");
        assert_eq!(span(&[7]), "node 7");
        assert_eq!(span(&[1, 2, 3, 4]), "nodes 1–4");
        assert_eq!(span(&[1, 2, 5, 6]), "4 nodes, 1–6");
    }

    #[test]
    fn a_compaction_says_what_it_covered_how_full_the_context_is_and_how_to_go_back() {
        let done = Compacted {
            session: "s".into(),
            node: 21,
            from: 20,
            covers: (1..=16).collect(),
            resumes_at: Some(17),
            text: "the gist".into(),
            model: ModelInfo {
                model: "flash".into(),
                model_version: None,
                finish_reason: None,
                usage: None,
                attempts: 1,
                latency_ms: 0,
                interrupted: false,
                provider: "gemini".into(),
            },
            before: measured(849_347, Some(1_048_576)),
            after: measured(125_900, Some(1_048_576)),
        };
        assert_eq!(
            compacted(&done, "omnictl undo"),
            "compacted nodes 1–16 into node 21 (summary); context 81% → 12% of 1,048,576; \
             `omnictl undo` returns to the full context"
        );
        let starting = Compacting {
            session: "s".into(),
            covers: 16,
            model: "gemini/flash".into(),
            why: "auto".into(),
        };
        assert_eq!(
            compacting(&starting),
            "compacting 16 nodes with gemini/flash (the context passed context.compact_at)…"
        );
    }
}
