//! A daemon whose configuration names a fake OpenAI-compatible server as the provider
//! `local`, and what the tests read back from it.

use serde_json::Value;

use crate::fake_openai::FakeOpenAi;
use crate::harness::Omni;

/// The key the provider `local` is configured with (from `LOCAL_KEY`).
pub const LOCAL_KEY: &str = "sk-local-secret";

/// A daemon whose file names `local` as the provider `local` (`extra` goes before the
/// table), with fast retries and `args`.
pub fn with_local(local: &FakeOpenAi, extra: &str, args: &[&str]) -> Omni {
    let config = format!(
        "{extra}\n[providers.local]\nkind = \"openai\"\nbase_url = \"{}\"\napi_key_env = \"LOCAL_KEY\"\n",
        local.url()
    );
    Omni::builder()
        .config(&config)
        .env("LOCAL_KEY", LOCAL_KEY)
        .args(&[
            "--retry-initial-delay-ms",
            "20",
            "--retry-max-delay-ms",
            "2000",
        ])
        .args(args)
        .start()
}

/// The `messages` of the `index`th request `local` received.
pub fn messages(local: &FakeOpenAi, index: usize) -> Vec<Value> {
    local.requests()[index].json()["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The events named `name` among `omnictl --json` lines.
pub fn events<'a>(lines: &'a [Value], name: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["event"] == name).collect()
}
