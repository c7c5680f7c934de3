//! Driving the proxy's OpenAI-compatible endpoint in tests: a daemon whose provider
//! `local` is the fake OpenAI server, requests with that provider's key, and reading
//! Chat Completions chunks and Responses API events back.

use std::net::SocketAddr;

use serde_json::{Value, json};

use crate::fake_openai::FakeOpenAi;
use crate::harness::Omni;
use crate::http::{Api, HttpReply, Target};
use crate::local::{LOCAL_KEY, with_local};

/// A daemon whose provider `local` is `fake`, with the proxy on a free port and `args`.
pub fn start(fake: &FakeOpenAi, args: &[&str]) -> (Omni, Api) {
    let mut all = vec!["--proxy-listen", "127.0.0.1:0"];
    all.extend_from_slice(args);
    let omni = with_local(fake, "", &all);
    let address = proxy_address(&omni);
    (omni, Api::new(Target::Tcp(address), None))
}

/// The proxy's address, as `omnictl status` names it.
pub fn proxy_address(omni: &Omni) -> SocketAddr {
    let status = omni.ctl(&["--json", "status"]).ok().json();
    status["proxy"]["address"]
        .as_str()
        .expect("status names the proxy's address")
        .parse()
        .expect("an address")
}

/// A `POST` of `body` to `path` with the provider's key, as the OpenAI Python SDK sends it.
pub fn post(api: &Api, path: &str, body: &Value) -> HttpReply {
    let bearer = format!("Bearer {LOCAL_KEY}");
    api.request(
        "POST",
        path,
        &[
            ("authorization", &bearer),
            ("user-agent", "OpenAI/Python 1.0"),
        ],
        &body.to_string(),
    )
}

/// A chat-completions request with the provider's key.
pub fn chat(api: &Api, body: &Value) -> HttpReply {
    post(api, "/v1/chat/completions", body)
}

/// A Responses API request with the provider's key.
pub fn responses(api: &Api, body: &Value) -> HttpReply {
    post(api, "/v1/responses", body)
}

/// The data of each event of a streamed body (`[DONE]` as the string "[DONE]").
pub fn data_of(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap_or_else(|_| json!(data.trim())))
        .collect()
}

/// The streamed text of Chat Completions chunks, joined.
pub fn text_of(events: &[Value]) -> String {
    events
        .iter()
        .filter_map(|e| e["choices"][0]["delta"]["content"].as_str())
        .collect()
}

/// The streamed text of Responses API events (`response.output_text.delta`), joined.
pub fn response_text_of(events: &[Value]) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "response.output_text.delta")
        .filter_map(|e| e["delta"].as_str())
        .collect()
}

/// The classes of the failures `omnictl logs list` shows, oldest first.
pub fn logged_classes(omni: &Omni) -> Vec<String> {
    let listed = omni.ctl(&["--json", "logs", "list"]).ok().json();
    let mut errors: Vec<Value> = listed["errors"].as_array().expect("an error list").clone();
    errors.reverse();
    errors
        .iter()
        .map(|e| e["class"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The entries of `api_errors.log` (one line each, `ERROR: error ...`).
pub fn logged_entries(omni: &Omni) -> Vec<String> {
    let log = std::fs::read_to_string(omni.log_dir.join("api_errors.log")).unwrap_or_default();
    log.lines()
        .filter(|l| l.contains("ERROR: error"))
        .map(str::to_string)
        .collect()
}
