//! The official `anthropic` and `openai` SDKs for Python straight against the fakes: each
//! reply the fakes give (streamed events, whole objects, errors, refusals) parses in the
//! SDK a user would run, so the end-to-end tests that use the fakes test against what the
//! real clients accept.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_anthropic::{self, FakeAnthropic};
use omni_tests::fake_openai::{self, FakeOpenAi};
use omni_tests::python;
use serde_json::json;

/// Runs `tests/fixtures/sdk/SCRIPT` with `args`; returns what it printed.
fn run_sdk_script(script: &str, args: &[&str]) -> String {
    let path = format!("{}/fixtures/sdk/{script}", env!("CARGO_MANIFEST_DIR"));
    let output = python::command(&path)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}: {}", python::hint()));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} failed ({}): {stdout}\n{stderr}\n{}",
        output.status,
        python::hint()
    );
    stdout
}

fn assert_printed(stdout: &str, lines: &[&str]) {
    for line in lines {
        assert!(
            stdout.lines().any(|printed| printed == *line),
            "no line {line:?} in:\n{stdout}"
        );
    }
}

#[test]
fn the_anthropic_sdk_parses_every_reply_of_the_fake() {
    use fake_anthropic::{Answer, Reply};
    let fake = FakeAnthropic::start().unwrap();
    let thinking = Answer::text(["Checking."])
        .with_thinking(["The user ", "says hello."], "sig-1")
        .with_tool_uses([("toolu_1", "get_weather", json!({"city": "Paris"}))]);
    fake.push([
        Reply::Answer(thinking),
        Reply::overloaded_mid_stream(Answer::text(["a", "b"]), 4),
        Reply::rate_limited(7),
        Reply::Answer(Answer::text(["a", "b", "c"]).with_pings()),
    ]);
    let stdout = run_sdk_script(
        "anthropic_fake.py",
        &[&fake.url(), fake_anthropic::DEFAULT_KEY],
    );
    assert_printed(
        &stdout,
        &[
            "blocks: ['thinking', 'text', 'tool_use'] sig-1 {'city': 'Paris'} tool_use",
            "mid-stream: APIStatusError overloaded_error",
            "status: 429 RateLimitError 7",
            "streamed: abc end_turn 3",
            "whole: You said: hello. I am a fake Anthropic model, and I was sent 1 message and a \
             system prompt. end_turn 20",
            "refused: messages: roles must alternate between \"user\" and \"assistant\", but found \
             multiple \"user\" roles in a row",
            "count: 10",
            "models: ['claude-fake-opus', 'claude-fake-haiku']",
        ],
    );
    let requests = fake.requests();
    assert!(
        requests
            .iter()
            .all(|r| r.header("anthropic-version").is_some())
    );
}

#[test]
fn the_openai_sdk_parses_every_reply_of_the_fake() {
    use fake_openai::{Answer, Reply};
    let fake = FakeOpenAi::start().unwrap();
    let calls = Answer {
        text: vec!["Listing.".into()],
        ..Answer::tool_calls([("call_1", "shell", json!({"cmd": "ls"}))])
    };
    fake.push([Reply::Answer(calls)]);
    let stdout = run_sdk_script("openai_fake.py", &[&fake.url()]);
    assert_printed(
        &stdout,
        &[
            "responses calls: ['message', 'function_call'] [('call_1', 'shell', '{\"cmd\":\"ls\"}')]",
            "responses whole: You said: hello. I am a fake OpenAI Responses model, and I was sent \
             1 item. 10",
            "responses streamed: Thanks: Tool c1 returned a.txt. I am a fake OpenAI Responses \
             model, and I was sent 3 items. completed",
            "chat streamed: You said: hi. I am a fake OpenAI-compatible model, and I was sent 1 \
             message. 10",
            "chat whole: You said: hi. I am a fake OpenAI-compatible model, and I was sent 1 \
             message. 10",
            "models: ['fake-model', 'fake-codex']",
        ],
    );
    assert!(
        stdout.contains("responses refused: ")
            && stdout.contains("No tool call found for function call output with call_id c9."),
        "{stdout}"
    );
}
