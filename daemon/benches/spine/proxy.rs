//! The proxy's cost per API it serves: a whole answer through the proxy vs the same
//! request straight to the same fake API, and a streamed answer's first byte likewise.

use std::time::{Duration, Instant};

use omni_tests::fake_anthropic::{self, FakeAnthropic};
use omni_tests::fake_gemini::FakeGemini;
use omni_tests::fake_openai::FakeOpenAi;

use crate::common::{Daemon, report, show, stats};

/// Which fake API a probe goes to, straight or through the proxy.
#[derive(Clone, Copy)]
enum Upstream {
    Gemini,
    OpenAi,
    Anthropic,
}

/// One kind of request the proxy bench times: where it goes, its body, its headers (the
/// key among them).
struct Probe {
    what: &'static str,
    path: &'static str,
    body: &'static str,
    headers: &'static [(&'static str, &'static str)],
    /// Timed to the first byte of a streamed answer, else to the end of a whole one.
    first_byte: bool,
}

const GEMINI_BODY: &str = r#"{"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}"#;
const CHAT_WHOLE: &str =
    r#"{"model": "fake-model", "messages": [{"role": "user", "content": "hello"}]}"#;
const CHAT_STREAM: &str = r#"{"model": "fake-model", "stream": true, "messages": [{"role": "user", "content": "hello"}]}"#;
const RESPONSES_WHOLE: &str = r#"{"model": "fake-model", "input": "hello"}"#;
const RESPONSES_STREAM: &str = r#"{"model": "fake-model", "stream": true, "input": "hello"}"#;
const MESSAGES_WHOLE: &str = r#"{"model": "claude-fake-opus", "max_tokens": 64, "messages": [{"role": "user", "content": "hello"}]}"#;
const MESSAGES_STREAM: &str = r#"{"model": "claude-fake-opus", "max_tokens": 64, "stream": true, "messages": [{"role": "user", "content": "hello"}]}"#;
const GEMINI_KEY: &[(&str, &str)] = &[("x-goog-api-key", "bench-key")];
const BEARER: &[(&str, &str)] = &[("authorization", "Bearer bench-key")];
const ANTHROPIC_HEADERS: &[(&str, &str)] = &[
    ("x-api-key", fake_anthropic::DEFAULT_KEY),
    ("anthropic-version", "2023-06-01"),
];

/// What the proxy bench times, per API: a whole answer, and a streamed one's first byte.
fn probes() -> [(Probe, Upstream); 8] {
    let (gemini, bearer) = (GEMINI_KEY, BEARER);
    let probe = |what, path, body, headers, first_byte| Probe {
        what,
        path,
        body,
        headers,
        first_byte,
    };
    [
        (
            probe(
                "gemini generateContent",
                "/v1beta/models/fake-model:generateContent",
                GEMINI_BODY,
                gemini,
                false,
            ),
            Upstream::Gemini,
        ),
        (
            probe(
                "gemini first byte (sse)",
                "/v1beta/models/fake-model:streamGenerateContent?alt=sse",
                GEMINI_BODY,
                gemini,
                true,
            ),
            Upstream::Gemini,
        ),
        (
            probe(
                "chat completions, whole",
                "/v1/chat/completions",
                CHAT_WHOLE,
                bearer,
                false,
            ),
            Upstream::OpenAi,
        ),
        (
            probe(
                "chat completions 1st byte",
                "/v1/chat/completions",
                CHAT_STREAM,
                bearer,
                true,
            ),
            Upstream::OpenAi,
        ),
        (
            probe(
                "responses, whole",
                "/v1/responses",
                RESPONSES_WHOLE,
                bearer,
                false,
            ),
            Upstream::OpenAi,
        ),
        (
            probe(
                "responses first byte",
                "/v1/responses",
                RESPONSES_STREAM,
                bearer,
                true,
            ),
            Upstream::OpenAi,
        ),
        (
            probe(
                "anthropic messages, whole",
                "/v1/messages",
                MESSAGES_WHOLE,
                ANTHROPIC_HEADERS,
                false,
            ),
            Upstream::Anthropic,
        ),
        (
            probe(
                "anthropic first byte",
                "/v1/messages",
                MESSAGES_STREAM,
                ANTHROPIC_HEADERS,
                true,
            ),
            Upstream::Anthropic,
        ),
    ]
}

/// Each API's requests through the proxy vs straight to the same fake API, alternating:
/// the Gemini endpoint to the fake Gemini API, the OpenAI endpoints (Chat Completions and
/// Responses) to the fake OpenAI API, configured as an OpenAI-compatible provider, the
/// Anthropic endpoint to the fake Anthropic API, configured as an Anthropic provider.
pub async fn overhead(rounds: usize) {
    let gemini = FakeGemini::start().unwrap();
    let openai = FakeOpenAi::start().unwrap();
    let anthropic = FakeAnthropic::start().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    let table = format!(
        "[providers.local]\nkind = \"openai\"\nbase_url = \"{}\"\n\
         [providers.claude]\nkind = \"anthropic\"\nbase_url = \"{}\"\n",
        openai.url(),
        anthropic.url()
    );
    std::fs::write(&config, table).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let listen = address.to_string();
    let config = config.display().to_string();
    let args = [
        "--proxy-listen",
        &listen,
        "--proxy-accept-any-key",
        "--config",
        &config,
    ];
    let _daemon = Daemon::start_with(dir.path(), &gemini.url(), &args);
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(address).is_err() {
        assert!(Instant::now() < deadline, "the proxy did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    let http = reqwest::Client::new();
    let proxy = format!("http://{address}");
    // The fake OpenAI API's URL ends in `/v1`, which the probes' paths begin with.
    let openai_root = openai.url().trim_end_matches("/v1").to_string();
    for (probe, upstream) in probes() {
        let straight = match upstream {
            Upstream::Gemini => gemini.url(),
            Upstream::OpenAi => openai_root.clone(),
            Upstream::Anthropic => anthropic.url(),
        };
        let (mut direct, mut through) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            direct.push(post(&http, &straight, &probe).await);
            through.push(post(&http, &proxy, &probe).await);
        }
        let (direct, through) = (stats(direct), stats(through));
        report(
            probe.what,
            "straight to the API",
            &direct,
            "through the proxy",
            &through,
        );
        println!(
            "{:<28} added by the proxy: p50 {}",
            "",
            show(through.p50.saturating_sub(direct.p50))
        );
    }
}

/// Times one POST of `probe` to `base`: until the whole answer arrived, or with
/// `first_byte` until its body's first chunk did (what a chat client waits before it can
/// show anything; the rest is read, not timed).
async fn post(http: &reqwest::Client, base: &str, probe: &Probe) -> Duration {
    let start = Instant::now();
    let mut reply = http
        .post(format!("{base}{}", probe.path))
        .headers(
            probe
                .headers
                .iter()
                .map(|(name, value)| {
                    (
                        reqwest::header::HeaderName::from_static(name),
                        reqwest::header::HeaderValue::from_static(value),
                    )
                })
                .collect(),
        )
        .header("content-type", "application/json")
        .body(probe.body)
        .send()
        .await
        .unwrap();
    assert!(
        reply.status().is_success(),
        "{}: {}",
        probe.what,
        reply.status()
    );
    let first = reply.chunk().await.unwrap();
    let at_first = start.elapsed();
    assert!(first.is_some_and(|bytes| !bytes.is_empty()));
    while reply.chunk().await.unwrap().is_some() {}
    if probe.first_byte {
        at_first
    } else {
        start.elapsed()
    }
}
