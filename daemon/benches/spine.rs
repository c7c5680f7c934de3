//! `cargo bench -p omnid --bench spine`: the spine's costs, each as a ratio against a
//! baseline measured in the same run on the same machine.
//!
//! 1. Request round trip through `omnid` (a `Ping`) vs a raw Unix-socket echo of a frame
//!    of the same size.
//! 2. `undo` + `redo` on a 100,000-turn session vs a 10-turn session (the cost must not
//!    grow with the session's length).
//! 3. A committed turn vs a raw `write` + `fdatasync` loop in the same directory: the
//!    store's commit alone (node + move + session in one transaction, flushed and synced),
//!    and a whole `send` (prompt commit, HTTP to the fake model, answer commit).
//! 5. Per API the proxy serves (Gemini, OpenAI Chat Completions, the Responses API,
//!    Anthropic Messages), a
//!    whole answer through the proxy vs the same request straight to the same fake API
//!    (the proxy's cost: key check, history check, recording lookup, the retry loop's
//!    bookkeeping, one more HTTP hop on loopback), and the time to the first byte of a
//!    streamed answer through the proxy vs straight (a response head and its first event
//!    are two writes: without `TCP_NODELAY` the second waits for the client's delayed
//!    acknowledgement); each as a ratio and as milliseconds added.
//!
//! `cargo bench -p omnid --bench spine -- proxy` runs only the proxy's figures (the
//! sections are `ping`, `undo`, `commit`, `history`, `proxy`).
//! 4. The whole transcript of a 10,000-turn session, which also reads the move log to say
//!    why each node is out of the context, vs its active path, which does not (every node
//!    is on the path, so both send the same entries).

#![allow(clippy::unwrap_used)] // a bench that cannot set up should stop loudly

use std::time::{Duration, Instant};

use omni_proto::{Client, MoveOp, Reply, Request, SessionRef};
use omni_tests::fake_anthropic::{self, FakeAnthropic};
use omni_tests::fake_gemini::FakeGemini;
use omni_tests::fake_openai::FakeOpenAi;
use omnid::model::SessionRecord;
use omnid::store::Store;
use uuid::Uuid;

mod common;

use common::seed::{commit_one, seed};
use common::{Daemon, Stats, fsync_loop, report, show, stats, time_n};

/// One undo followed by one redo on a session; returns how long the pair took.
async fn undo_redo_pair(client: &mut Client, session: &SessionRef) -> Duration {
    let start = Instant::now();
    for op in [MoveOp::Undo, MoveOp::Redo] {
        let request = Request::Move {
            session: session.clone(),
            op,
        };
        client.call(request, |_| {}).await.unwrap();
    }
    start.elapsed()
}

/// Undo+redo on a 10-turn and a 100,000-turn session in one daemon, alternating between
/// them sample by sample, so that drifting disk latency (each move is synced) hits both
/// alike. Also returns each session's first change, which loads its tree.
async fn undo_redo(pairs: usize) -> (Stats, Stats, Duration, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let short = SessionRef::Id(seed(&data, 10).await.to_string());
    let long = SessionRef::Id(seed(&data, 100_000).await.to_string());
    let daemon = Daemon::start(dir.path(), "http://127.0.0.1:9");
    let mut client = daemon.client().await;
    let short_first = undo_redo_pair(&mut client, &short).await;
    let long_first = undo_redo_pair(&mut client, &long).await;
    let (mut short_samples, mut long_samples) = (Vec::new(), Vec::new());
    for _ in 0..pairs {
        short_samples.push(undo_redo_pair(&mut client, &short).await);
        long_samples.push(undo_redo_pair(&mut client, &long).await);
    }
    (
        stats(short_samples),
        stats(long_samples),
        short_first,
        long_first,
    )
}

/// Whole history (with the move log) vs the active path, alternating sample by sample.
async fn history_with_reasons(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let session = SessionRef::Id(seed(&data, 10_000).await.to_string());
    let daemon = Daemon::start(dir.path(), "http://127.0.0.1:9");
    let mut client = daemon.client().await;
    let mut read = async |active_only: bool| {
        let start = Instant::now();
        let request = Request::History {
            session: session.clone(),
            active_only,
        };
        let reply = client.call(request, |_| {}).await.unwrap();
        assert!(matches!(reply, Reply::History(view) if view.entries.len() == 10_000));
        start.elapsed()
    };
    let (mut active, mut whole) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        active.push(read(true).await);
        whole.push(read(false).await);
    }
    report(
        "history, 10,000 turns",
        "active path",
        &stats(active),
        "whole, with reasons",
        &stats(whole),
    );
}

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
async fn proxy_overhead(rounds: usize) {
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

async fn commits(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    fsync_loop(dir.path(), rounds / 10);
    let base = fsync_loop(dir.path(), rounds);

    let store = Store::open(&dir.path().join("store")).unwrap();
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let mut commit_turn = async || commit_one(&store, &mut record).await;
    time_n(rounds / 10, &mut commit_turn).await;
    let store_commit = stats(time_n(rounds, &mut commit_turn).await);
    report(
        "committed turn (store)",
        "write+fdatasync",
        &base,
        "store commit",
        &store_commit,
    );

    let fake = FakeGemini::start().unwrap();
    let daemon = Daemon::start(dir.path(), &fake.url());
    let mut client = daemon.client().await;
    client
        .call(
            Request::NewSession {
                tools_json: None,
                model: None,
                fallback: Vec::new(),
                system: None,
            },
            |_| {},
        )
        .await
        .unwrap();
    let mut send = async || {
        let request = Request::Send {
            session: SessionRef::Current,
            prompt: "hello".into(),
            replace: false,
        };
        client.call(request, |_| {}).await.unwrap();
    };
    let sends = rounds / 2;
    time_n(sends / 10, &mut send).await;
    let whole_send = stats(time_n(sends, &mut send).await);
    report(
        "committed turn (send)",
        "write+fdatasync",
        &base,
        "whole send",
        &whole_send,
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    // The sections named after `--` (cargo passes `--bench` too), or all of them.
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    let runs = |section: &str| named.is_empty() || named.iter().any(|name| name == section);
    runtime.block_on(async {
        println!("omni spine bench: each figure is a ratio against a baseline from this run\n");
        if runs("ping") {
            let (echo, ping) = common::echo::round_trips(5000).await;
            report(
                "request round trip",
                "raw socket echo",
                &echo,
                "omnid ping",
                &ping,
            );
        }
        if runs("undo") {
            let (small, large, small_first, large_first) = undo_redo(500).await;
            report("undo+redo", "10 turns", &small, "100,000 turns", &large);
            println!(
                "{:<28} first undo+redo after start-up (loads the tree): 10 turns {}, 100,000 turns {}",
                "",
                show(small_first),
                show(large_first)
            );
        }
        if runs("commit") {
            commits(300).await;
        }
        if runs("history") {
            history_with_reasons(40).await;
        }
        if runs("proxy") {
            proxy_overhead(500).await;
        }
    });
}
