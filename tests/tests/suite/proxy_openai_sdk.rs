//! The official OpenAI Python SDK (`openai`, which `scripts/test` installs in the tests'
//! virtual environment) through the proxy with nothing but its base URL changed, and its
//! own retries off: a 503 before an answer, a reset, and cut streams (Chat Completions and
//! the Responses API) are healed where the SDK alone would have failed or shown a
//! truncated answer.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_openai::{Answer, FakeOpenAi, Reply, responses_echo};
use omni_tests::local::LOCAL_KEY;
use omni_tests::openai_proxy::{proxy_address, start};
use omni_tests::proxy::{proxy_status, recorded};
use omni_tests::python;
use serde_json::json;

/// The answer the fake gives (its echo) to one user message.
fn echo(said: &str) -> Answer {
    Answer::echo(&[json!({"role": "user", "content": said})])
}

#[test]
fn the_official_openai_sdk_works_through_the_proxy_unchanged() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, _) = start(&fake, &[]);
    let responses_answer = responses_echo(&[json!({"role": "user", "content": "list the files"})]);
    fake.push([
        // The whole chat completion: a 503, then the fake's own answer.
        Reply::server_error(503),
        Reply::Answer(echo("hello from the SDK")),
        // The streamed one: a reset, then cut after three chunks.
        Reply::Reset,
        Reply::Cut {
            answer: echo("and streamed"),
            after: 3,
        },
        Reply::Answer(echo("and streamed")),
        // The Responses stream: a 503, then cut mid-text.
        Reply::server_error(503),
        Reply::Cut {
            answer: responses_answer.clone(),
            after: 6,
        },
        Reply::Answer(responses_answer.clone()),
    ]);
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/python/openai_sdk.py"
    );
    let output = python::command(script)
        .arg(format!("http://{}/v1", proxy_address(&omni)))
        .arg("local/fake-model")
        .env("OPENAI_API_KEY", LOCAL_KEY)
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap_or_else(|e| panic!("{e}: {}", python::hint()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the SDK failed ({}):\n{stdout}\n{stderr}",
        python::hint()
    );
    let whole = echo("hello from the SDK").text.concat();
    let streamed = echo("and streamed").text.concat();
    let listed = responses_answer.text.concat();
    for line in [
        format!("chat whole: {whole}"),
        format!("chat streamed: {streamed}"),
        format!("responses streamed: {listed}"),
        "responses final: completed True".to_string(),
    ] {
        assert!(
            stdout.lines().any(|printed| printed == line),
            "no line {line:?} in:\n{stdout}"
        );
    }
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("chat usage: ") && l != "chat usage: None"),
        "{stdout}"
    );
    assert_eq!(fake.request_count(), 8);
    let status = proxy_status(&omni);
    assert_eq!(status["requests"], 3, "{status}");
    assert_eq!(status["healed"], 3, "{status}");
    // Each conversation is a session, the whole chat completion's too.
    let sessions = recorded(&omni);
    assert_eq!(sessions.len(), 3, "{sessions:?}");
    let titles: Vec<&str> = sessions
        .iter()
        .filter_map(|s| s["title"].as_str())
        .collect();
    assert!(titles.contains(&"hello from the SDK"), "{titles:?}");
}
