//! Request bodies through the proxy: an agent's long context (past the 2 MiB the proxy
//! once took) passes, and a client whose key would be refused gets its 401 before any of
//! its body is read, on every API.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use omni_tests::fake_openai::FakeOpenAi;
use omni_tests::local::LOCAL_KEY;
use omni_tests::openai_proxy::{chat, proxy_address, start};
use serde_json::json;

#[test]
fn a_long_context_passes_and_a_refused_key_is_answered_before_its_body_is_read() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    // An agent's long context: 5 MiB of prompt, well past the old 2 MiB limit.
    let long = "x".repeat(5 * 1024 * 1024);
    let body = json!({"model": "gpt-fake", "stream": true, "messages": [{"role": "user", "content": long}]});
    let reply = chat(&api, &body);
    assert_eq!(
        reply.status,
        200,
        "{}",
        &reply.body[..reply.body.len().min(300)]
    );
    assert_eq!(fake.request_count(), 1);

    // A client whose key would be refused gets its 401 at once: no body is read.
    for (path, key) in [
        ("/v1/chat/completions", ("authorization", "Bearer sk-wrong")),
        (
            "/v1beta/models/fake-model:generateContent",
            ("x-goog-api-key", "wrong"),
        ),
    ] {
        let mut conn = TcpStream::connect(proxy_address(&omni)).unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: omni\r\nContent-Type: application/json\r\n\
             {}: {}\r\nContent-Length: 99999999999\r\n\r\n{{",
            key.0, key.1
        );
        conn.write_all(head.as_bytes()).unwrap();
        let mut answer = vec![0u8; 4096];
        let n = conn.read(&mut answer).expect("an answer within 2 s");
        let answer = String::from_utf8_lossy(&answer[..n]);
        assert!(answer.starts_with("HTTP/1.1 401 "), "{path}: {answer}");
    }
    assert_eq!(
        fake.request_count(),
        1,
        "nothing refused reached the upstream"
    );
}

/// The bodies held at once are bounded across connections (`--request-body-budget-mb`):
/// while one request holds the budget, another waits its client timeout and is answered
/// 503 saying why; once the first is done, the next goes through.
#[test]
fn request_bodies_held_at_once_are_bounded_across_connections() {
    use omni_tests::proxy::{STREAM, proxy_status, start};
    let (omni, api) = start(&[
        "--request-body-budget-mb",
        "1",
        "--client-timeout-secs",
        "2",
    ]);
    let prompt = |kib: usize| {
        json!({"contents": [{"role": "user", "parts": [{"text": "x".repeat(kib * 1024)}]}]})
            .to_string()
    };
    let key = [("x-goog-api-key", omni_tests::harness::TEST_API_KEY)];
    // The first request's answer is held upstream: its 900 KiB body stays held.
    let gate = omni_tests::scenario::held_answer(&omni);
    let address = proxy_status(&omni)["address"].as_str().unwrap().to_string();
    let body = prompt(900);
    let mut first = TcpStream::connect(&address).unwrap();
    let head = format!(
        "POST {STREAM} HTTP/1.1\r\nHost: omni\r\nContent-Type: application/json\r\n\
         x-goog-api-key: {}\r\nContent-Length: {}\r\n\r\n",
        omni_tests::harness::TEST_API_KEY,
        body.len()
    );
    first.write_all(head.as_bytes()).unwrap();
    first.write_all(body.as_bytes()).unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("partial") {
        let n = first.read(&mut buffer).unwrap();
        assert!(n > 0, "the first stream ended early");
        seen.extend_from_slice(&buffer[..n]);
    }
    let refused = api.request("POST", STREAM, &key, &prompt(500));
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert!(
        refused.body.contains("holding 1 MiB of request bodies"),
        "{}",
        refused.body
    );
    gate.open();
    drop(first);
    let through = api.request("POST", STREAM, &key, &prompt(500));
    assert_eq!(
        through.status,
        200,
        "{}",
        &through.body[..through.body.len().min(300)]
    );
}
