//! What the demo model can be asked to do besides echoing, so the quick start shows
//! Omni's healing and recovery without a real API: a tag in the prompt picks a trick.

use std::collections::HashSet;
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
}

const TAGS: [(&str, Trick); 4] = [
    ("[demo:503]", Trick::Overloaded),
    ("[demo:400]", Trick::Rejected),
    ("[demo:slow]", Trick::Slow),
    ("[demo:markdown]", Trick::Markdown),
];

/// The trick the latest turn's text asks for, if any.
pub fn asked(latest_text: &str) -> Option<Trick> {
    TAGS.iter()
        .find(|(tag, _)| latest_text.contains(tag))
        .map(|(_, trick)| *trick)
}

/// The pause between streamed words for a trick.
pub fn word_pause(trick: Option<Trick>) -> Duration {
    match trick {
        Some(Trick::Slow) => Duration::from_millis(400),
        _ => Duration::from_millis(40),
    }
}

/// The markdown answer.
pub const MARKDOWN: &str = "# An append-only tree\n\nEvery turn is a **node**; undo only moves the \
    *head*:\n\n- nothing is deleted\n- every branch stays listed\n\n```\nomnictl undo   # the head moves up\nomnictl redo   # and back\n```\n";

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
    fn an_overload_fails_once_per_body() {
        let overloads = Overloads::default();
        assert!(overloads.fails_first(b"a"));
        assert!(!overloads.fails_first(b"a"), "the identical retry succeeds");
        assert!(overloads.fails_first(b"b"));
    }
}
