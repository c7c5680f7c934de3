//! The session drawn as a tree: a conversation runs straight down; where it forks, each
//! branch is indented under the fork. The head's path is highlighted, the head marked,
//! and every node out of the context says why (undone, rewound, ...); a node a summary
//! stands for is marked `[ COMPACTED ]`, and a summary says what it covers.

use std::collections::HashMap;

use omni_proto::{Entry, HistoryView};

use super::style::Style;
use super::width;
use crate::render::transcript::{COMPACTED, REVERTED};

/// The first line of an entry's content, cut to `max` columns.
fn gist(entry: &Entry, max: usize) -> String {
    let text = if entry.text.trim().is_empty() {
        entry
            .parts
            .iter()
            .find_map(|p| match &p.content {
                omni_proto::PartContent::FunctionCall { name, .. } => Some(format!("→ {name}(…)")),
                omni_proto::PartContent::FunctionResponse { name, .. } => Some(format!("← {name}")),
                _ => None,
            })
            .unwrap_or_default()
    } else {
        entry
            .text
            .trim()
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    width::cut(&text, max)
}

/// The characters of a node's first line shown where the width is not known (piped).
const GIST_CHARS: usize = 60;

/// One node's line after its branch marks (`indent`): on a terminal `columns` wide the
/// first line of its text is cut so that the whole line fits.
fn line(entry: &Entry, head: u64, style: &Style, indent: &str, columns: Option<usize>) -> String {
    let label = format!("#{} {}: ", entry.id, entry.role.as_str());
    let end = if entry.reverted {
        let why = entry.why_reverted.map_or("reverted", |w| w.as_str());
        format!("  {REVERTED} {why}")
    } else {
        let mut end = String::new();
        if entry.compacted {
            end.push_str(&format!("  {COMPACTED}"));
        }
        if let Some(compaction) = &entry.compaction {
            end.push_str(&format!(
                "  (summary of {})",
                super::context::span(&compaction.covers)
            ));
        }
        if entry.id == head {
            end.push_str("  ◀ head");
        }
        end
    };
    let room = columns.map_or(GIST_CHARS, |columns| {
        columns.saturating_sub(width::visible_width(&format!("{indent}{label}{end}")))
    });
    let text = format!("{label}{}{end}", gist(entry, room));
    if entry.reverted {
        style.dim(&text)
    } else {
        style.bold(&text)
    }
}

/// Draws the whole tree, one node per line, in creation order within each branch; each
/// line fits a terminal `columns` wide.
pub fn draw(view: &HistoryView, style: &Style, columns: Option<usize>) -> String {
    let mut children: HashMap<u64, Vec<&Entry>> = HashMap::new();
    for entry in &view.entries {
        children
            .entry(entry.parent.unwrap_or(0))
            .or_default()
            .push(entry);
    }
    let mut out = style.dim(&format!("session {} · head #{}\n", view.session, view.head));
    if view.entries.is_empty() {
        out.push_str(&style.dim("(no turns yet)\n"));
        return out;
    }
    // (node, prefix of its own line, prefix of the lines under it), deepest last.
    let mut stack: Vec<(&Entry, String, String)> = Vec::new();
    push_children(&children, 0, "", &mut stack);
    while let Some((entry, first, rest)) = stack.pop() {
        out.push_str(&first);
        out.push_str(&line(entry, view.head, style, &first, columns));
        out.push('\n');
        push_children(&children, entry.id, &rest, &mut stack);
    }
    out
}

/// Queues a node's children: a single child continues the column; several are indented
/// under the fork with branch marks.
fn push_children<'a>(
    children: &HashMap<u64, Vec<&'a Entry>>,
    parent: u64,
    prefix: &str,
    stack: &mut Vec<(&'a Entry, String, String)>,
) {
    let Some(kids) = children.get(&parent) else {
        return;
    };
    if let [only] = kids.as_slice() {
        stack.push((only, prefix.to_string(), prefix.to_string()));
        return;
    }
    for (i, kid) in kids.iter().enumerate().rev() {
        let last = i + 1 == kids.len();
        let (mark, under) = if last {
            ("└─ ", "   ")
        } else {
            ("├─ ", "│  ")
        };
        stack.push((kid, format!("{prefix}{mark}"), format!("{prefix}{under}")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use omni_proto::{Part, RevertReason, Role};

    fn entry(id: u64, parent: u64, role: Role, why: Option<RevertReason>) -> Entry {
        Entry {
            id,
            parent: (parent != 0).then_some(parent),
            role,
            text: format!("text {id}"),
            parts: vec![Part::text(format!("text {id}"))],
            created_at_ms: 0,
            reverted: why.is_some(),
            why_reverted: why,
            model: None,
            compacted: false,
            compaction: None,
            client_compaction: false,
        }
    }

    #[test]
    fn branches_are_indented_under_their_fork_and_say_why_they_are_out() {
        use RevertReason::*;
        let view = HistoryView {
            usage: omni_proto::UsageTotals::default(),
            session: "s".into(),
            head: 6,
            entries: vec![
                entry(1, 0, Role::User, None),
                entry(2, 1, Role::Model, None),
                entry(3, 2, Role::User, Some(Rewound)),
                entry(4, 3, Role::Model, Some(Undone)),
                entry(5, 2, Role::User, None),
                entry(6, 5, Role::Model, None),
                entry(7, 5, Role::Model, Some(Interrupted)),
            ],
            damaged: None,
            context: crate::render::context::tests::gauge(0, None),
            earlier: None,
        };
        let drawn = draw(&view, &Style::new(false), None);
        assert_eq!(
            drawn,
            "session s · head #6\n\
             #1 user: text 1\n\
             #2 model: text 2\n\
             ├─ #3 user: text 3  [ REVERTED ] rewound\n\
             │  #4 model: text 4  [ REVERTED ] undone\n\
             └─ #5 user: text 5\n\
             \u{20}  ├─ #6 model: text 6  ◀ head\n\
             \u{20}  └─ #7 model: text 7  [ REVERTED ] interrupted\n"
        );
    }

    #[test]
    fn covered_nodes_are_marked_and_the_summary_says_what_it_covers() {
        let mut entries = vec![
            entry(1, 0, Role::User, None),
            entry(2, 1, Role::Model, None),
            entry(3, 2, Role::Summary, None),
        ];
        entries[0].compacted = true;
        entries[1].compacted = true;
        entries[2].compaction = Some(omni_proto::Compaction {
            covers: vec![1, 2],
            resumes_at: None,
            instructions: None,
        });
        let view = HistoryView {
            usage: omni_proto::UsageTotals::default(),
            session: "s".into(),
            head: 3,
            entries,
            damaged: None,
            context: crate::render::context::tests::gauge(0, None),
            earlier: None,
        };
        assert_eq!(
            draw(&view, &Style::new(false), None),
            "session s · head #3\n\
             #1 user: text 1  [ COMPACTED ]\n\
             #2 model: text 2  [ COMPACTED ]\n\
             #3 summary: text 3  (summary of nodes 1–2)  ◀ head\n"
        );
    }
}
