//! Small helpers for the sentences the daemon says.

/// Two sentences joined with exactly one full stop between them, whatever the first one
/// ends with (API messages usually end with their own).
pub fn then(first: &str, next: &str) -> String {
    format!("{}. {next}", first.trim_end().trim_end_matches('.'))
}

/// "1 attempt", "3 attempts".
pub fn count(n: u32, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The first line of some text, at most `max` characters (an ellipsis marks a cut).
pub fn first_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    clip(line, max)
}

/// The last non-empty line of some text, at most `max` characters.
pub fn last_line(text: &str, max: usize) -> String {
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    clip(line, max)
}

/// How long a title taken from a prompt may be, in characters.
pub const TITLE_CHARS: usize = 60;

/// A session's title taken from its first prompt: the first non-empty line, its runs of
/// white space made single spaces, cut at a word boundary to at most [`TITLE_CHARS`]
/// characters (an ellipsis marks the cut). What agent CLIs put before the user's own
/// words (see [`PREAMBLE_TAGS`]) is skipped. The one title rule every part of the daemon
/// (sends, proxied and imported conversations) shares.
pub fn title_of(text: &str) -> String {
    let own = without_preamble(text);
    let text = if own.trim().is_empty() { text } else { own };
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let words: Vec<&str> = line.split_whitespace().collect();
    let whole = words.join(" ");
    if whole.chars().count() <= TITLE_CHARS {
        return whole;
    }
    let mut title = String::new();
    for word in &words {
        let longer = title.chars().count() + usize::from(!title.is_empty()) + word.chars().count();
        if longer > TITLE_CHARS - 1 {
            break;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    if title.is_empty() {
        // One word longer than a title: cut inside it.
        title = whole.chars().take(TITLE_CHARS - 1).collect();
    }
    title.push('…');
    title
}

/// Blocks agent CLIs send ahead of the user's prompt (Claude Code's reminders and slash
/// command echoes, Codex's environment and instructions), which would otherwise title
/// every session they record alike.
pub const PREAMBLE_TAGS: [&str; 8] = [
    "system-reminder",
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "environment_context",
    "user_instructions",
    "user-prompt-submit-hook",
];

/// How agent CLIs begin the prompt that carries their own compaction's summary: Claude
/// Code's `/compact` (and its automatic compaction) and gemini-cli's `/compress`.
const CLIENT_SUMMARY_MARKS: [&str; 2] = [
    "This session is being continued from a previous conversation that ran out of context",
    "<state_snapshot>",
];

/// Whether a recorded prompt is another client's compaction summary: the conversation
/// it stands for went on in another session (or an earlier branch).
pub fn is_client_summary(text: &str) -> bool {
    let start = without_preamble(text).trim_start();
    CLIENT_SUMMARY_MARKS
        .iter()
        .any(|mark| start.starts_with(mark))
}

/// `text` after the preamble blocks it starts with.
fn without_preamble(text: &str) -> &str {
    let mut rest = text.trim_start();
    while let Some(tag) = PREAMBLE_TAGS.iter().find(|tag| {
        rest.strip_prefix('<')
            .and_then(|r| r.strip_prefix(**tag))
            .is_some_and(|r| r.starts_with('>'))
    }) {
        let close = format!("</{tag}>");
        let Some(end) = rest.find(&close) else {
            break;
        };
        rest = rest[end + close.len()..].trim_start();
    }
    rest
}

fn clip(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        line.to_string()
    } else {
        let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_join_with_one_full_stop_and_counts_agree() {
        assert_eq!(then("Try again later.", "Saved"), "Try again later. Saved");
        assert_eq!(then("failed", "Saved"), "failed. Saved");
        assert_eq!(count(1, "attempt"), "1 attempt");
        assert_eq!(count(2, "attempt"), "2 attempts");
    }

    #[test]
    fn lines_are_clipped_with_an_ellipsis() {
        assert_eq!(first_line("\n  hello world\nsecond", 80), "hello world");
        assert_eq!(last_line("one\ntwo\n\n", 80), "two");
        assert_eq!(first_line("abcdef", 4), "abc…");
    }

    #[test]
    fn titles_are_the_first_line_cut_at_a_word() {
        assert_eq!(
            title_of("\n  Fix   the build\nsecond line"),
            "Fix the build"
        );
        let long = "Explain why the borrow checker rejects this closure that captures a mutable reference twice";
        let title = title_of(long);
        assert_eq!(
            title,
            "Explain why the borrow checker rejects this closure that…"
        );
        assert!(title.chars().count() <= TITLE_CHARS);
        assert!(long.starts_with(title.trim_end_matches('…')));
        let word = "x".repeat(100);
        assert_eq!(title_of(&word).chars().count(), TITLE_CHARS);
        assert_eq!(title_of(""), "");
    }

    #[test]
    fn an_agent_s_preamble_is_no_title() {
        let claude = "<system-reminder>\nAs you answer, keep in mind\n</system-reminder>\
                      <command-name>/review</command-name>Fix the flaky test";
        assert_eq!(title_of(claude), "Fix the flaky test");
        let codex =
            "<environment_context>\n  <cwd>/src</cwd>\n</environment_context>\n\nList the files";
        assert_eq!(title_of(codex), "List the files");
        // Only a preamble: better its first line than nothing.
        assert_eq!(
            title_of("<system-reminder>x</system-reminder>"),
            "<system-reminder>x</system-reminder>"
        );
        // Other tags are the user's own words.
        assert_eq!(title_of("<div>hello</div>"), "<div>hello</div>");
    }
}
