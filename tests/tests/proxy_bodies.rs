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
