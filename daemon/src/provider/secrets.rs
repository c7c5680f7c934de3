//! Every secret omnid has seen, in one place every line it writes passes through: the
//! configured keys and the keys clients bring through the proxy (an upstream may echo
//! either back in an error, and a client may paste its key into a prompt). Each
//! [`super::Redactor`] adds the keys it is made with, and redacts all of them; the log on
//! stderr goes through [`RedactedStderr`], so no log line, reply or record carries one.

use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::sync::{Arc, LazyLock, RwLock};

use aho_corasick::AhoCorasick;

/// What is put where a secret was.
pub const REDACTED: &str = "[REDACTED]";

/// The shortest text taken for a secret: shorter "keys" (a test's `k`) would redact
/// ordinary words everywhere.
pub const MIN_SECRET_CHARS: usize = 8;

/// The most secrets kept; the oldest learned goes first.
const KEEP: usize = 1024;

#[derive(Default)]
struct Known {
    order: VecDeque<String>,
    set: HashSet<String>,
    matcher: Option<Arc<AhoCorasick>>,
}

static KNOWN: LazyLock<RwLock<Known>> = LazyLock::new(RwLock::default);

/// Adds a secret (nothing for one already known, or too short to be one).
pub fn learn(secret: &str) {
    if secret.chars().count() < MIN_SECRET_CHARS {
        return;
    }
    if KNOWN
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .set
        .contains(secret)
    {
        return;
    }
    let mut known = KNOWN.write().unwrap_or_else(|e| e.into_inner());
    if !known.set.insert(secret.to_string()) {
        return;
    }
    known.order.push_back(secret.to_string());
    if known.order.len() > KEEP
        && let Some(oldest) = known.order.pop_front()
    {
        known.set.remove(&oldest);
    }
    known.matcher = AhoCorasick::new(&known.order).ok().map(Arc::new);
}

/// `text` with every known secret replaced by [`REDACTED`] (borrowed when none is in it).
pub fn redact(text: &str) -> std::borrow::Cow<'_, str> {
    let matcher = KNOWN
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .matcher
        .clone();
    match matcher {
        Some(matcher) if matcher.is_match(text) => std::borrow::Cow::Owned(
            matcher.replace_all(text, &vec![REDACTED; matcher.patterns_len()]),
        ),
        _ => std::borrow::Cow::Borrowed(text),
    }
}

/// stderr for the log: each line written with every known secret redacted (the log's
/// formatter writes a line at once).
#[derive(Debug, Clone, Copy, Default)]
pub struct RedactedStderr;

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for RedactedStderr {
    type Writer = RedactedStderr;

    fn make_writer(&'a self) -> Self::Writer {
        RedactedStderr
    }
}

impl Write for RedactedStderr {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(bytes);
        std::io::stderr().write_all(redact(&text).as_bytes())?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learned_secrets_are_redacted_and_short_ones_are_not_secrets() {
        learn("sk-client-0123456789");
        learn("short");
        assert_eq!(
            redact("echo: sk-client-0123456789 and short"),
            "echo: [REDACTED] and short"
        );
        assert!(matches!(
            redact("nothing here"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
