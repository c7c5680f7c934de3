//! Driving the Gemini-compatible proxy in tests: a daemon with the proxy on a free port,
//! requests with the daemon's key, and reading what comes back.

use std::net::SocketAddr;

use serde_json::{Value, json};

use crate::harness::{Omni, TEST_API_KEY};
use crate::http::{Api, HttpReply, Target};

/// A streamed generation request to the fake model, as SSE.
pub const STREAM: &str = "/v1beta/models/fake-model:streamGenerateContent?alt=sse";
/// A plain generation request to the fake model.
pub const WHOLE: &str = "/v1beta/models/fake-model:generateContent";
/// A one-turn request body.
pub const BODY: &str = r#"{"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}"#;

/// A daemon with the proxy on a free loopback port, retrying quickly.
pub fn start(extra: &[&str]) -> (Omni, Api) {
    let mut args = vec![
        "--proxy-listen",
        "127.0.0.1:0",
        "--retry-initial-delay-ms",
        "10",
    ];
    args.extend_from_slice(extra);
    let omni = Omni::builder().args(&args).start();
    let status = omni.ctl(&["--json", "status"]).ok().json();
    let address: SocketAddr = status["proxy"]["address"]
        .as_str()
        .expect("status names the proxy's address")
        .parse()
        .expect("an address");
    (omni, Api::new(Target::Tcp(address), None))
}

/// A request with the daemon's own key.
pub fn post(api: &Api, path: &str, body: &str) -> HttpReply {
    api.request("POST", path, &[("x-goog-api-key", TEST_API_KEY)], body)
}

/// The `data:` payloads of an SSE body, as JSON.
pub fn events(body: &str) -> Vec<Value> {
    body.split("\r\n\r\n")
        .filter_map(|event| event.trim().strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).expect("an event of JSON"))
        .collect()
}

/// The text of an answer's events, joined.
pub fn text_of(events: &[Value]) -> String {
    events
        .iter()
        .filter_map(|e| e["candidates"][0]["content"]["parts"][0]["text"].as_str())
        .collect()
}

/// What `omnictl --json status` says of the proxy.
pub fn proxy_status(omni: &Omni) -> Value {
    omni.ctl(&["--json", "status"]).ok().json()["proxy"].clone()
}

/// A content of the request, for the history tests.
pub fn content(role: &str, parts: Value) -> Value {
    json!({"role": role, "parts": parts})
}

/// A streamed request of these (role, text) turns; returns the answer's text.
pub fn converse(api: &Api, turns: &[(&str, &str)]) -> String {
    let reply = ask(api, STREAM, turns);
    text_of(&events(&reply.body))
}

/// A whole-answer request (`generateContent`) of these (role, text) turns; returns the
/// answer's text.
pub fn converse_whole(api: &Api, turns: &[(&str, &str)]) -> String {
    let reply = ask(api, WHOLE, turns);
    text_of(&[reply.json()])
}

/// A request of these (role, text) turns to `path`, answered 200.
fn ask(api: &Api, path: &str, turns: &[(&str, &str)]) -> HttpReply {
    let contents: Vec<Value> = turns
        .iter()
        .map(|(role, text)| content(role, json!([{"text": text}])))
        .collect();
    let body = json!({ "contents": contents }).to_string();
    let reply = api.request(
        "POST",
        path,
        &[
            ("x-goog-api-key", TEST_API_KEY),
            ("user-agent", "test-client/1.0"),
        ],
        &body,
    );
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply
}

/// Waits until `ready` holds (something the daemon does after the client has its answer,
/// such as logging that a recording failed).
#[track_caller]
pub fn eventually(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !ready() {
        assert!(std::time::Instant::now() < deadline, "never: {what}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Total nodes in all sessions.
pub fn nodes(omni: &Omni) -> u64 {
    recorded(omni)
        .iter()
        .map(|s| s["nodes"].as_u64().expect("a node count"))
        .sum()
}

/// The proxy's recorded sessions, as `omnictl --json sessions` lists them.
pub fn recorded(omni: &Omni) -> Vec<Value> {
    let listed = omni.ctl(&["--json", "sessions"]).ok().json();
    listed["sessions"]
        .as_array()
        .expect("a session list")
        .clone()
}

/// The one recorded session, as `omnictl --json sessions` lists it (there must be exactly
/// one).
#[track_caller]
pub fn only_session(omni: &Omni) -> Value {
    let sessions = recorded(omni);
    assert_eq!(sessions.len(), 1, "one recorded session: {sessions:?}");
    sessions[0].clone()
}

/// The id of the one recorded session, whose entries' roles must be `roles`.
#[track_caller]
pub fn only_session_with_roles(omni: &Omni, roles: &[&str]) -> String {
    let id = only_session(omni)["id"]
        .as_str()
        .expect("a session id")
        .to_string();
    assert_eq!(recorded_roles(omni, &id), roles);
    id
}

/// The roles of a recorded session's entries, in order (`user`, `model`, `tool`).
pub fn recorded_roles(omni: &Omni, session: &str) -> Vec<String> {
    omni.history_of(session)["entries"]
        .as_array()
        .expect("a history's entries")
        .iter()
        .map(|e| e["role"].as_str().unwrap_or_default().to_string())
        .collect()
}
