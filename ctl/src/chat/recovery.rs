//! The recovery menu's rows: one per way out, and one row for ways out that take the same
//! nodes out of the context (a failed prompt alone at the head: deep rollback and clear
//! turn do the same), labelled with all their names. Compact says what its summary would
//! cover, and comes first only when it fits the failure best (a context too long).

use omni_proto::{RecoveryAction, RecoveryPreview};

use super::menu::Choice;

/// One row of the menu and the way out it applies.
pub struct Row {
    /// What the menu shows.
    pub choice: Choice,
    /// What choosing it asks the daemon for (the first of the ways out merged here).
    pub action: RecoveryAction,
}

/// A way out's name as the menu shows it: `deep rollback`, `clear turn`, ...
fn name(action: RecoveryAction) -> &'static str {
    let explanation = action.explanation();
    explanation.split(':').next().unwrap_or(explanation)
}

/// What a way out takes out of the context, as the menu says it.
fn detail(preview: &RecoveryPreview) -> String {
    if preview.action == RecoveryAction::Compact {
        return format!(
            "(summarises {} into one node, then sends again; they stay in the tree)",
            crate::render::context::span(&preview.covers)
        );
    }
    let drops = &preview.drops;
    if drops.is_empty() {
        return "(the context stays as it is)".to_string();
    }
    let nodes: Vec<String> = drops.iter().rev().map(|n| format!("#{n}")).collect();
    format!("(takes {} out of the context)", nodes.join(", "))
}

/// The order the menu shows `previews` in: theirs, except that compact goes last unless
/// the daemon marks it `first`.
fn ordered(previews: &[RecoveryPreview]) -> Vec<&RecoveryPreview> {
    let demoted = |p: &&RecoveryPreview| p.action == RecoveryAction::Compact && !p.first;
    let (last, mut order): (Vec<_>, Vec<_>) = previews.iter().partition(demoted);
    order.sort_by_key(|p| !p.first);
    order.extend(last);
    order
}

/// The menu's rows for `previews`: ways out that take the same nodes out and leave the
/// head at the same node are one row, named by all of them.
pub fn rows(previews: &[RecoveryPreview]) -> Vec<Row> {
    let mut rows: Vec<(Row, &RecoveryPreview)> = Vec::new();
    for preview in ordered(previews) {
        let same = rows.iter_mut().find(|(_, earlier)| {
            preview.action != RecoveryAction::Compact
                && !preview.drops.is_empty()
                && earlier.drops == preview.drops
                && earlier.head_after == preview.head_after
        });
        match same {
            Some((row, _)) => {
                row.choice.label = format!("{} / {}", row.choice.label, name(preview.action));
            }
            None => rows.push((
                Row {
                    choice: Choice {
                        label: name(preview.action).to_string(),
                        detail: detail(preview),
                    },
                    action: preview.action,
                },
                preview,
            )),
        }
    }
    rows.into_iter().map(|(row, _)| row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview(action: RecoveryAction, head_after: u64, drops: &[u64]) -> RecoveryPreview {
        RecoveryPreview {
            action,
            head_after,
            drops: drops.to_vec(),
            covers: Vec::new(),
            first: false,
        }
    }

    fn compact(covers: &[u64], first: bool) -> RecoveryPreview {
        RecoveryPreview {
            covers: covers.to_vec(),
            first,
            ..preview(RecoveryAction::Compact, 9, &[])
        }
    }

    #[test]
    fn compact_says_what_it_covers_and_leads_only_when_it_fits_best() {
        let others = [
            preview(RecoveryAction::Deep, 4, &[6, 5]),
            preview(RecoveryAction::Retry, 6, &[]),
        ];
        let too_long: Vec<_> = [compact(&[1, 2, 3, 4], true)]
            .into_iter()
            .chain(others.clone())
            .collect();
        assert_eq!(
            shown(&rows(&too_long)),
            [
                "compact (summarises nodes 1–4 into one node, then sends again; they stay in \
                 the tree)",
                "deep rollback (takes #5, #6 out of the context)",
                "retry (the context stays as it is)",
            ]
        );
        let other_failure: Vec<_> = [compact(&[1, 2], false)]
            .into_iter()
            .chain(others)
            .collect();
        let rows = rows(&other_failure);
        assert_eq!(rows[0].action, RecoveryAction::Deep);
        assert_eq!(rows[2].action, RecoveryAction::Compact);
    }

    fn shown(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|r| format!("{} {}", r.choice.label, r.choice.detail))
            .collect()
    }

    #[test]
    fn ways_out_that_take_the_same_nodes_are_one_row_named_by_both() {
        let previews = [
            preview(RecoveryAction::Deep, 0, &[1]),
            preview(RecoveryAction::Clear, 0, &[1]),
            preview(RecoveryAction::Ignore, 1, &[]),
            preview(RecoveryAction::Retry, 1, &[]),
        ];
        let rows = rows(&previews);
        assert_eq!(
            shown(&rows),
            [
                "deep rollback / clear turn (takes #1 out of the context)",
                "ignore (the context stays as it is)",
                "retry (the context stays as it is)",
            ]
        );
        assert_eq!(rows[0].action, RecoveryAction::Deep);
        assert_eq!(rows[2].action, RecoveryAction::Retry);
    }

    #[test]
    fn different_ways_out_stay_apart() {
        let previews = [
            preview(RecoveryAction::Deep, 0, &[3, 2, 1]),
            preview(RecoveryAction::Clear, 2, &[3]),
        ];
        assert_eq!(
            shown(&rows(&previews)),
            [
                "deep rollback (takes #1, #2, #3 out of the context)",
                "clear turn (takes #3 out of the context)",
            ]
        );
    }
}
