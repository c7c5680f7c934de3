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
#[path = "transcript_tests.rs"]
mod tests;
