//! `omnictl status` (text and `--json`) and the HTTP API's status count the proxy's
//! requests per endpoint (Gemini, Chat Completions, the Responses API, Anthropic) beside
//! the totals, so a user sees which client's requests were healed or failed.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini;
use omni_tests::fake_openai::{FakeOpenAi, Reply};
use omni_tests::local::LOCAL_KEY;
use omni_tests::openai_proxy::{chat, responses, start};
use omni_tests::proxy::{BODY, STREAM, post, proxy_status};
use omni_tests::scenario::overloaded;
use serde_json::{Value, json};

#[test]
fn status_counts_each_endpoints_requests_healed_and_failed() {
    let fake = FakeOpenAi::with_key(LOCAL_KEY).unwrap();
    let (omni, api) = start(&fake, &[]);
    // Gemini: one healed past a 503.
    omni.fake().push([
        overloaded(),
        fake_gemini::Reply::Answer(fake_gemini::Answer::text(["fine"])),
    ]);
    assert_eq!(post(&api, STREAM, BODY).status, 200);
    // Chat Completions: one answered at once, one failed (a 400 is not retried).
    let hi = json!({"model": "gpt-fake", "messages": [{"role": "user", "content": "hi"}]});
    assert_eq!(chat(&api, &hi).status, 200);
    fake.push([Reply::context_length_exceeded()]);
    assert_eq!(chat(&api, &hi).status, 400);
    // The Responses API: two healed.
    fake.push([Reply::server_error(503), Reply::Answer(Default::default())]);
    fake.push([Reply::server_error(500)]);
    let ls = json!({"model": "gpt-fake", "input": "ls"});
    assert_eq!(responses(&api, &ls).status, 200);
    assert_eq!(responses(&api, &ls).status, 200);

    let status = proxy_status(&omni);
    assert_eq!(
        (&status["requests"], &status["healed"], &status["failed"]),
        (&json!(5), &json!(3), &json!(1)),
        "{status}"
    );
    let counts: Vec<(String, u64, u64, u64)> = status["endpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let n = |field: &str| e[field].as_u64().unwrap();
            (
                e["api"].as_str().unwrap().to_string(),
                n("requests"),
                n("healed"),
                n("failed"),
            )
        })
        .collect();
    let expected = [
        ("gemini", 1, 1, 0),
        ("openai", 2, 0, 1),
        ("openai-responses", 2, 2, 0),
        ("anthropic", 0, 0, 0),
    ]
    .map(|(api, r, h, f)| (api.to_string(), r, h, f));
    assert_eq!(counts, expected, "{status}");

    let text = omni.ctl(&["status"]).ok().stdout;
    for line in [
        "5 requests, 3 healed, 1 failed",
        "gemini:           1 request, 1 healed, 0 failed",
        "openai:           2 requests, 0 healed, 1 failed",
        "openai-responses: 2 requests, 2 healed, 0 failed",
        "anthropic:        0 requests, 0 healed, 0 failed",
    ] {
        assert!(text.contains(line), "no {line:?} in:\n{text}");
    }
    let over_http: Value = omni.api().get("/v1/status").json();
    assert_eq!(over_http["proxy"]["endpoints"], status["endpoints"]);
}
