//! The official Anthropic Python SDK (`anthropic`, which `scripts/test` installs in the
//! tests' virtual environment) through the proxy with nothing but its base URL changed,
//! and its own retries off: a 529, a cut stream and an error event mid-stream are healed
//! where the SDK alone would have raised, and the tool conversation is recorded.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_anthropic::{self, Answer, FakeAnthropic, Reply};
use omni_tests::harness::Omni;
use omni_tests::proxy::{proxy_status, recorded};
use omni_tests::python;
use serde_json::json;

#[test]
fn the_official_anthropic_sdk_works_through_the_proxy_unchanged() {
    let fake = FakeAnthropic::start().unwrap();
    let config = format!(
        "[providers.claude]\nkind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"CLAUDE_KEY\"\n",
        fake.url()
    );
    let omni = Omni::builder()
        .config(&config)
        .env("CLAUDE_KEY", fake_anthropic::DEFAULT_KEY)
        .args(&[
            "--proxy-listen",
            "127.0.0.1:0",
            "--retry-initial-delay-ms",
            "20",
        ])
        .start();
    let tool_use = || {
        Answer::text(["Let me ", "check."])
            .with_thinking(["Paris ", "weather."], "sig-1")
            .with_tool_uses([("toolu_1", "get_weather", json!({"city": "Paris"}))])
    };
    fake.push([
        // The first stream: a 529, then cut, then broken by an error event.
        Reply::overloaded(),
        Reply::Cut {
            answer: tool_use(),
            after: 6,
        },
        Reply::overloaded_mid_stream(tool_use(), 9),
        Reply::Answer(tool_use()),
        // The second (after the tool's result) and the whole one: the fake's echo.
    ]);
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/python/anthropic_sdk.py"
    );
    let address = proxy_status(&omni)["address"].as_str().unwrap().to_string();
    let output = python::command(script)
        .arg(format!("http://{address}"))
        .arg("claude/claude-fake-opus")
        .env("ANTHROPIC_API_KEY", fake_anthropic::DEFAULT_KEY)
        .env_remove("ANTHROPIC_BASE_URL")
        .output()
        .unwrap_or_else(|e| panic!("{e}: {}", python::hint()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the SDK failed ({}):\n{stdout}\n{stderr}",
        python::hint()
    );
    for line in [
        "first: ['thinking', 'text', 'tool_use'] get_weather {'city': 'Paris'} tool_use",
        "second: Thanks: Tool toolu_1 returned 21 degrees",
    ] {
        assert!(
            stdout.lines().any(|l| l.starts_with(line)),
            "no {line:?} in:\n{stdout}"
        );
    }
    assert!(stdout.contains("whole: You said: hello."), "{stdout}");
    assert!(stdout.contains("count: "), "{stdout}");
    // The model went upstream by its own name, the SDK's version header with it.
    let requests = fake.requests();
    assert!(
        requests
            .iter()
            .all(|r| r.header("anthropic-version").is_some())
    );
    assert!(
        requests
            .iter()
            .filter(|r| r.path().starts_with("/v1/messages"))
            .all(|r| r.json()["model"] == "claude-fake-opus")
    );
    // The tool conversation is one recorded session (prompt, tool use, result, answer),
    // the whole answer another.
    let sessions = recorded(&omni);
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    let nodes: Vec<u64> = sessions
        .iter()
        .filter_map(|s| s["nodes"].as_u64())
        .collect();
    assert!(nodes.contains(&4) && nodes.contains(&2), "{sessions:?}");
    let anthropic = proxy_status(&omni)["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["api"] == "anthropic")
        .cloned()
        .unwrap();
    assert_eq!(anthropic["healed"], 1, "{anthropic}");
}
