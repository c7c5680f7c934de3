//! A daemon whose default provider is a fake Anthropic API, and what the tests read back
//! from it and from the session it answers.

use serde_json::Value;

use crate::fake_anthropic::{self, FakeAnthropic};
use crate::harness::Omni;

/// A daemon whose default provider is the fake Anthropic, its key in `ANTHROPIC_API_KEY`.
pub fn on_anthropic(server: &FakeAnthropic, args: &[&str]) -> Omni {
    Omni::builder()
        .base_url(&server.url())
        .args(&["--provider", "anthropic"])
        .args(&[
            "--retry-initial-delay-ms",
            "20",
            "--retry-max-delay-ms",
            "3000",
        ])
        .args(args)
        .env("ANTHROPIC_API_KEY", fake_anthropic::DEFAULT_KEY)
        .start()
}

/// The `messages` of the `index`th request the server received.
pub fn messages(server: &FakeAnthropic, index: usize) -> Vec<Value> {
    server.requests()[index].json()["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The last entry of the current session's history.
pub fn last_entry(omni: &Omni) -> Value {
    let history = omni.ctl(&["--json", "history"]).ok().json();
    history["entries"]
        .as_array()
        .and_then(|entries| entries.last())
        .expect("a history with entries")
        .clone()
}
