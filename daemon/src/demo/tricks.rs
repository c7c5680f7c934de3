//! What the demo model can be asked to do besides echoing, so the quick start shows all of
//! Omni without a real API: a tag in the prompt picks a trick. The tags and what each shows
//! are declared once, in `omni_proto::DEMO_TAGS` (which `omnictl chat`'s `/help` lists).

use std::collections::HashSet;
use std::fmt::Write as _;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;
use std::time::Duration;

/// A trick, and the tag in a prompt that asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trick {
    /// `[demo:503]`: overloaded once, then answers the identical retry (healed).
    Overloaded,
    /// `[demo:400]`: rejects the request as invalid every time (the session needs recovery).
    Rejected,
    /// `[demo:slow]`: streams slowly enough to cancel with Ctrl-C.
    Slow,
    /// `[demo:markdown]`: answers with markdown (a heading, a list, code).
    Markdown,
    /// `[demo:tool]`: calls a function, so the client asks for its result.
    ToolCall,
    /// `[demo:think]`: streams thought summaries before the answer.
    Thinking,
    /// `[demo:long]`: a long answer.
    Long,
    /// `[demo:fallback]`: the demo's own model is out of quota; its fallback answers.
    OutOfQuota,
    /// `[demo:blocked]`: refuses the prompt every time, so sends fail until the session is
    /// suspended.
    Blocked,
}

/// Each trick's tag (every one of them in `omni_proto::DEMO_TAGS`, a test checks).
const TAGS: [(&str, Trick); 9] = [
    ("[demo:503]", Trick::Overloaded),
    ("[demo:400]", Trick::Rejected),
    ("[demo:slow]", Trick::Slow),
    ("[demo:markdown]", Trick::Markdown),
    ("[demo:tool]", Trick::ToolCall),
    ("[demo:think]", Trick::Thinking),
    ("[demo:long]", Trick::Long),
    ("[demo:fallback]", Trick::OutOfQuota),
    ("[demo:blocked]", Trick::Blocked),
];

/// The trick the latest turn's text asks for, if any.
pub fn asked(latest_text: &str) -> Option<Trick> {
    TAGS.iter()
        .find(|(tag, _)| latest_text.contains(tag))
        .map(|(_, trick)| *trick)
}

/// The pause between streamed pieces for a trick.
pub fn pause(trick: Option<Trick>) -> Duration {
    match trick {
        Some(Trick::Slow) => Duration::from_millis(400),
        Some(Trick::Long) => Duration::from_millis(5),
        Some(Trick::Thinking) => Duration::from_millis(150),
        _ => Duration::from_millis(40),
    }
}

/// The markdown answer.
pub const MARKDOWN: &str = "# An append-only tree\n\nEvery turn is a **node**; undo only moves the \
    *head*:\n\n- nothing is deleted\n- every branch stays listed\n\n```\nomnictl undo   # the head moves up\nomnictl redo   # and back\n```\n";

/// The thought summaries streamed before a thinking answer.
pub const THOUGHTS: [&str; 3] = [
    "**Reading the prompt.** The user wants to see a thought stream. ",
    "**Planning.** Thoughts arrive first, as their own parts, and never enter the answer. ",
    "**Answering.** Echo the prompt, as the demo model always does.",
];

/// The function the tool trick calls, and its arguments.
pub const TOOL_CALL: (&str, &str) = ("get_weather", r#"{"city": "Paris"}"#);

/// Lines of the long answer.
const LONG_LINES: usize = 120;

/// The long answer: numbered lines, one streamed piece each.
pub fn long_answer() -> Vec<String> {
    let mut lines = Vec::with_capacity(LONG_LINES + 1);
    lines.push(format!(
        "A long answer of {LONG_LINES} lines, streamed a line at a time:\n"
    ));
    for n in 1..=LONG_LINES {
        let mut line = format!("{n:>3}. ");
        let _ = write!(
            line,
            "line {n} of {LONG_LINES}: every turn is stored before it is shown, and undo only \
             moves the head."
        );
        line.push('\n');
        lines.push(line);
    }
    lines
}

/// Request bodies already answered with a 503, so their identical retry succeeds.
#[derive(Default)]
pub struct Overloads {
    seen: Mutex<HashSet<u64>>,
}

impl Overloads {
    /// Whether this body fails now: the first time it is seen.
    pub fn fails_first(&self, body: &[u8]) -> bool {
        let mut hasher = DefaultHasher::new();
        body.hash(&mut hasher);
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.insert(hasher.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_anywhere_in_the_latest_text_picks_its_trick() {
        assert_eq!(asked("please [demo:503] now"), Some(Trick::Overloaded));
        assert_eq!(asked("[demo:markdown]"), Some(Trick::Markdown));
        assert_eq!(asked("plain"), None);
    }

    #[test]
    fn every_tag_help_lists_is_a_trick_and_every_trick_is_listed() {
        let listed: Vec<&str> = omni_proto::DEMO_TAGS.iter().map(|t| t.tag).collect();
        let known: Vec<&str> = TAGS.iter().map(|(tag, _)| *tag).collect();
        assert_eq!(listed, known);
    }

    #[test]
    fn an_overload_fails_once_per_body() {
        let overloads = Overloads::default();
        assert!(overloads.fails_first(b"a"));
        assert!(!overloads.fails_first(b"a"), "the identical retry succeeds");
        assert!(overloads.fails_first(b"b"));
    }
}
