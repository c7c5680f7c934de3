//! The transcript: every entry in creation order, reverted ones prefixed `[ REVERTED ]`
//! (and dim + struck through on a colour terminal). A compaction's summary opens with a
//! rule saying what it covers; the nodes it covers are folded into one line per run, or
//! shown whole and prefixed `[ COMPACTED ]` (they are still on the path, not reverted).

use omni_proto::{Entry, HistoryView, PartContent};

use super::context;
use super::style::Style;

/// The prefix that marks an entry the model will not see.
pub const REVERTED: &str = "[ REVERTED ]";

/// The prefix that marks an entry a summary stands for in the model's context.
pub const COMPACTED: &str = "[ COMPACTED ]";

/// How much of the content to show.
#[derive(Debug, Clone, Copy, Default)]
pub struct Detail {
    /// Include thought summaries.
    pub thoughts: bool,
    /// Cut an entry longer than [`CUT_CHARS`] characters or [`CUT_LINES`] lines, with a
    /// note ending in this text (how to see it whole), and fold the entries a summary
    /// covers into one line per run; `None` shows every entry whole.
    pub cut: Option<&'static str>,
}

/// The characters of one entry shown before it is cut (a few screens of prose).
pub const CUT_CHARS: usize = 4000;

/// The lines of one entry shown before it is cut (about a screen and a half).
pub const CUT_LINES: usize = 60;

/// The first [`CUT_LINES`] lines and [`CUT_CHARS`] characters of `lines`, and a note saying
/// how much more there is and `whole` (how to see it all); `lines` as they are when short.
fn cut_entry(lines: Vec<String>, whole: &str) -> Vec<String> {
    let mut shown = Vec::new();
    let mut budget = CUT_CHARS;
    let mut cut = false;
    let (mut hidden_chars, mut hidden_lines) = (0, 0);
    for line in lines {
        let chars = line.chars().count();
        if cut || shown.len() == CUT_LINES {
            cut = true;
            hidden_chars += chars;
            hidden_lines += 1;
        } else if chars <= budget {
            budget -= chars;
            shown.push(line);
        } else {
            // This line's start is shown, the rest of it is not.
            cut = true;
            hidden_chars += chars - budget;
            shown.push(line.chars().take(budget).collect());
        }
    }
    if cut {
        shown.push(cut_note(hidden_chars, hidden_lines, whole));
    }
    shown
}

fn cut_note(characters: usize, lines: usize, whole: &str) -> String {
    let lines = match lines {
        0 => String::new(),
        1 => ", 1 more line".to_string(),
        n => format!(", {n} more lines"),
    };
    format!("… cut here ({characters} more characters{lines} not shown; {whole})")
}

/// Lines of one entry's content: text, and calls / results / thoughts as their own lines.
fn content_lines(entry: &Entry, detail: Detail) -> Vec<String> {
    let mut lines = Vec::new();
    for part in &entry.parts {
        match &part.content {
            PartContent::Text(text) => lines.extend(text.lines().map(str::to_string)),
            PartContent::Thought(text) if detail.thoughts => {
                lines.extend(text.lines().map(|l| format!("(thought) {l}")))
            }
            PartContent::Thought(_) => {}
            PartContent::FunctionCall {
                name, args_json, ..
            } => lines.push(format!("→ {name}({args_json})")),
            PartContent::FunctionResponse {
                name,
                response_json,
                ..
            } => lines.push(format!("← {name}: {response_json}")),
            PartContent::Other { json } => lines.push(format!("(part) {json}")),
            // Said by the rule above a summary (`context::summary_rule`).
            PartContent::Compaction { .. } => {}
        }
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    match detail.cut {
        Some(whole) => cut_entry(lines, whole),
        None => lines,
    }
}

/// Renders one entry as lines of text. A reverted entry is styled as a whole, line by
/// line: its role label is not coloured, because the colour's reset would also switch the
/// strike-through off for the rest of the line. A compacted entry is dim the same way.
pub fn entry(entry: &Entry, style: &Style, detail: Detail) -> String {
    let plain = entry.reverted || entry.compacted;
    let role = if plain {
        entry.role.as_str().to_string()
    } else {
        style.role(entry.role)
    };
    let mut label = format!("#{} {role}", entry.id);
    if entry.model.as_ref().is_some_and(|m| m.interrupted) {
        label.push_str(" (interrupted)");
    }
    if entry.client_compaction {
        label.push_str(" (the client's own compaction of an earlier conversation)");
    }
    let mut out = String::new();
    if let Some(compaction) = &entry.compaction {
        out.push_str(&style.dim(&context::summary_rule(entry, compaction)));
        out.push('\n');
    }
    for (i, line) in content_lines(entry, detail).iter().enumerate() {
        let text = if i == 0 {
            format!("{label}: {line}")
        } else {
            format!("    {line}")
        };
        if entry.reverted {
            out.push_str(&style.reverted(&format!("{REVERTED} {text}")));
        } else if entry.compacted {
            out.push_str(&style.dim(&format!("{COMPACTED} {text}")));
        } else {
            out.push_str(&text);
        }
        out.push('\n');
    }
    out
}

/// The line that says which model answered from here on: shown above the first answer and
/// wherever the model changes.
fn model_line(now: &str, style: &Style) -> String {
    style.dim(&format!("── model: {now} ──\n"))
}

/// Renders a whole transcript with a header line (the head, how full the context is, the
/// session's usage).
pub fn history(view: &HistoryView, style: &Style, detail: Detail) -> String {
    let head = if view.head == 0 {
        "the start".to_string()
    } else {
        format!("#{}", view.head)
    };
    let usage = match view.usage.answers {
        0 => String::new(),
        _ => format!(" · {}", super::usage::line(&view.usage)),
    };
    let gauge = context::gauge(&view.context);
    let mut out = style.dim(&format!(
        "session {} · head {head} · {gauge}{usage}\n",
        view.session
    ));
    if let Some(warning) = &view.context.warning {
        out.push_str(&style.error(&format!("{warning}\n")));
    }
    if let Some(reason) = &view.damaged {
        out.push_str(&style.error(&format!(
            "this session is damaged: {reason}; it is shown as stored and takes no changes\n"
        )));
    }
    let fold = detail.cut.is_some();
    let mut answering: Option<String> = None;
    let mut entries = view.entries.iter().peekable();
    while let Some(item) = entries.next() {
        if fold && item.compacted {
            let mut run = vec![item.id];
            while let Some(next) = entries.next_if(|e| e.compacted) {
                run.push(next.id);
            }
            let line = context::folded(&run, context::summary_covering(&view.entries, item.id));
            out.push_str(&style.dim(&format!("{line}\n")));
            continue;
        }
        if let Some(model) = &item.model {
            let now = super::model_ref(model);
            if answering.as_ref() != Some(&now) {
                out.push_str(&model_line(&now, style));
                answering = Some(now);
            }
        }
        out.push_str(&entry(item, style, detail));
    }
    if view.entries.is_empty() {
        out.push_str(&style.dim("(no turns yet)\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use omni_proto::{Part, Role};

    fn item(id: u64, role: Role, text: &str, reverted: bool) -> Entry {
        Entry {
            id,
            parent: id.checked_sub(1).filter(|p| *p > 0),
            role,
            text: text.into(),
            parts: vec![Part::text(text)],
            created_at_ms: 0,
            reverted,
            why_reverted: reverted.then_some(omni_proto::RevertReason::Undone),
            model: None,
            compacted: false,
            compaction: None,
            client_compaction: false,
        }
    }

    fn view(head: u64, entries: Vec<Entry>) -> HistoryView {
        HistoryView {
            usage: omni_proto::UsageTotals::default(),
            session: "s".into(),
            head,
            entries,
            damaged: None,
            context: context::tests::gauge(1_000, Some(100_000)),
        }
    }

    #[test]
    fn reverted_entries_carry_the_plain_prefix_on_every_line() {
        let view = view(
            1,
            vec![
                item(1, Role::User, "hello", false),
                item(2, Role::Model, "line one\nline two", true),
            ],
        );
        let text = history(&view, &Style::new(false), Detail::default());
        assert_eq!(
            text,
            "session s · head #1 · context 1% of 100,000\n#1 user: hello\n[ REVERTED ] #2 model: line one\n[ REVERTED ]     line two\n"
        );
    }

    #[test]
    fn colour_strikes_every_line_of_a_reverted_entry_through_to_its_end() {
        let style = Style::new(true);
        let text = entry(
            &item(2, Role::Model, "gone\nand this too", true),
            &style,
            Detail::default(),
        );
        assert_eq!(
            text,
            "\x1b[2;9m[ REVERTED ] #2 model: gone\x1b[0m\n\
             \x1b[2;9m[ REVERTED ]     and this too\x1b[0m\n",
            "no reset before the end of a line may switch the strike-through off"
        );
        let live = entry(
            &item(1, Role::User, "here", false),
            &style,
            Detail::default(),
        );
        assert_eq!(live, "#1 \x1b[1;36muser\x1b[0m: here\n");
    }

    fn answered_by(mut entry: Entry, provider: &str, model: &str) -> Entry {
        entry.model = Some(omni_proto::ModelInfo {
            model: model.into(),
            model_version: None,
            finish_reason: Some("STOP".into()),
            usage: None,
            attempts: 1,
            latency_ms: 0,
            interrupted: false,
            provider: provider.into(),
        });
        entry
    }

    #[test]
    fn the_model_is_named_above_the_first_answer_and_wherever_it_changes() {
        let view = view(
            6,
            vec![
                item(1, Role::User, "a", false),
                answered_by(item(2, Role::Model, "b", false), "gemini", "flash"),
                item(3, Role::User, "c", false),
                answered_by(item(4, Role::Model, "d", false), "gemini", "flash"),
                item(5, Role::User, "e", false),
                answered_by(item(6, Role::Model, "f", false), "local", "qwen"),
            ],
        );
        let text = history(&view, &Style::new(false), Detail::default());
        assert_eq!(
            text,
            "session s · head #6 · context 1% of 100,000\n#1 user: a\n── model: gemini/flash ──\n#2 model: b\n\
             #3 user: c\n#4 model: d\n#5 user: e\n── model: local/qwen ──\n#6 model: f\n"
        );
    }

    #[test]
    fn a_huge_entry_is_cut_with_a_note_on_how_to_see_it_whole() {
        let huge = "x".repeat(5_000_000);
        let detail = Detail {
            thoughts: false,
            cut: Some("--full shows it whole"),
        };
        let text = entry(
            &item(1, Role::User, &huge, false),
            &Style::new(false),
            detail,
        );
        assert!(text.len() < CUT_CHARS + 200, "{} bytes shown", text.len());
        assert!(text.starts_with(&format!("#1 user: {}\n", "x".repeat(CUT_CHARS))));
        assert!(
            text.ends_with(
                "\n    … cut here (4996000 more characters not shown; --full shows it whole)\n"
            ),
            "{}",
            &text[text.len() - 200..]
        );
        let many = "line\n".repeat(100);
        let text = entry(
            &item(1, Role::User, &many, false),
            &Style::new(false),
            detail,
        );
        assert_eq!(text.lines().count(), CUT_LINES + 1);
        assert!(
            text.contains("(160 more characters, 40 more lines not shown;"),
            "{text}"
        );
        let whole = entry(
            &item(1, Role::User, &huge, false),
            &Style::new(false),
            Detail::default(),
        );
        assert!(whole.len() > 5_000_000);
    }

    /// A session of two rounds compacted into node 5, a kept round (6, 7) and a new one.
    fn compacted_session() -> HistoryView {
        let mut entries: Vec<Entry> = (1..=4)
            .map(|id| {
                let role = if id % 2 == 1 { Role::User } else { Role::Model };
                let mut entry = item(id, role, &format!("old {id}"), false);
                entry.compacted = true;
                entry
            })
            .collect();
        let mut summary = item(5, Role::Summary, "The user asked twice.", false);
        summary.parent = Some(7);
        summary.compaction = Some(omni_proto::Compaction {
            covers: vec![1, 2, 3, 4],
            resumes_at: Some(6),
            instructions: None,
        });
        entries.push(summary);
        entries.push(item(6, Role::User, "kept", false));
        entries.push(item(7, Role::Model, "kept too", false));
        view(7, entries)
    }

    #[test]
    fn covered_entries_fold_into_one_line_and_the_summary_says_how_to_get_them_back() {
        let cut = Detail {
            thoughts: false,
            cut: Some("--full shows it whole"),
        };
        let text = history(&compacted_session(), &Style::new(false), cut);
        assert_eq!(
            text,
            "session s · head #7 · context 1% of 100,000\n\
             nodes 1–4 compacted into node 5: history --full shows them\n\
             ── summary of nodes 1–4 (compacted; `undo` right after it, or `checkout 7`, \
             returns to them) ──\n\
             #5 summary: The user asked twice.\n\
             #6 user: kept\n\
             #7 model: kept too\n"
        );
    }

    #[test]
    fn in_full_covered_entries_are_marked_compacted_not_reverted() {
        let text = history(&compacted_session(), &Style::new(false), Detail::default());
        assert!(
            text.contains("[ COMPACTED ] #1 user: old 1\n[ COMPACTED ] #2 model: old 2\n"),
            "{text}"
        );
        assert!(!text.contains(REVERTED), "{text}");
        let coloured = entry(
            &compacted_session().entries[0],
            &Style::new(true),
            Detail::default(),
        );
        assert_eq!(
            coloured, "\x1b[2m[ COMPACTED ] #1 user: old 1\x1b[0m\n",
            "dim, not struck through"
        );
    }

    #[test]
    fn a_client_compaction_is_labelled_as_the_clients_and_a_warning_follows_the_header() {
        let mut prompt = item(1, Role::User, "Summary of our earlier chat", false);
        prompt.client_compaction = true;
        let mut view = view(1, vec![prompt]);
        view.context.warning = Some("the context is 85% full: omnictl compact".into());
        let text = history(&view, &Style::new(false), Detail::default());
        assert_eq!(
            text,
            "session s · head #1 · context 1% of 100,000\n\
             the context is 85% full: omnictl compact\n\
             #1 user (the client's own compaction of an earlier conversation): Summary of our \
             earlier chat\n"
        );
    }
}
