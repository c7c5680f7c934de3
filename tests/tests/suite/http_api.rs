//! The HTTP/JSON API end to end: a real daemon, a real HTTP client on its `api.sock` (and
//! on loopback TCP with the bearer token), the fake model API behind it.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::Omni;
use omni_tests::http::{Api, Target};
use omni_tests::scenario::{held_answer, poisoned_by_a_400, tools_file};
use serde_json::{Value, json};

fn new_session(api: &Api) -> String {
    let created = api.post("/v1/sessions", "{}");
    assert_eq!(created.status, 201, "{}", created.body);
    created.json()["session"].as_str().unwrap().to_string()
}

#[test]
fn a_session_over_http_sends_streams_undoes_and_reads_back() {
    let omni = Omni::start();
    let api = omni.api();
    assert_eq!(api.get("/v1/sessions").json()["sessions"], json!([]));
    let id = new_session(&api);
    let prefix = &id[..8];
    let gate = held_answer(&omni);
    let mut stream = api.events(
        "POST",
        &format!("/v1/sessions/{prefix}/send"),
        r#"{"prompt": "hello"}"#,
    );
    assert_eq!(stream.status, 200);
    // The first events arrive while the model still holds the rest of the answer.
    let early = stream.until("text");
    assert_eq!(early[0].name, "prompt_stored");
    assert_eq!(early[0].data["node"], 1);
    assert_eq!(stream.until("text").last().unwrap().data["text"], "answer ");
    gate.open();
    let result = stream.until("result").pop().unwrap();
    assert_eq!(result.data["node"], 2);
    assert_eq!(result.data["text"], "partial answer never finished");
    assert!(stream.next_event().is_none(), "exactly one final event");

    let whole = api.request(
        "POST",
        "/v1/sessions/current/send",
        &[("accept", "application/json")],
        r#"{"prompt": "again"}"#,
    );
    assert_eq!(whole.status, 200, "{}", whole.body);
    assert_eq!(whole.json()["node"], 4);

    let session = api.get(&format!("/v1/sessions/{id}")).json();
    assert_eq!(
        (session["head"].clone(), session["nodes"].clone()),
        (json!(4), json!(4))
    );
    let undone = api.post("/v1/sessions/current/undo", "").json();
    assert_eq!(
        (undone["from"].clone(), undone["to"].clone()),
        (json!(4), json!(3))
    );
    assert_eq!(api.post("/v1/sessions/current/redo", "").json()["to"], 4);
    assert_eq!(api.post("/v1/sessions/current/back", "").json()["to"], 2);
    let checkout = api.post(&format!("/v1/sessions/{id}/checkout"), r#"{"node": 1}"#);
    assert_eq!(checkout.json()["to"], 1);
    let history = api.get("/v1/sessions/current/history").json();
    assert_eq!(history["head"], 1);
    assert_eq!(history["entries"].as_array().unwrap().len(), 4);
    assert_eq!(history["entries"][3]["reverted"], true);
    let active = api.get("/v1/sessions/current/history?active=true").json();
    assert_eq!(active["entries"].as_array().unwrap().len(), 1);
    let branches = api.get("/v1/sessions/current/branches").json();
    assert_eq!(branches["head"], 1);
    // The same JSON as omnictl prints.
    let ctl = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(ctl, history);
    let status = api.get("/v1/status").json();
    assert_eq!(status["sessions"], 1);
    assert_eq!(
        api.get("/v1/sessions").json()["sessions"][0]["id"],
        id.as_str()
    );
}

#[test]
fn cancel_over_http_keeps_the_partial_answer_out_and_the_next_send_works_at_once() {
    let omni = Omni::start();
    let api = omni.api();
    new_session(&api);
    let gate = held_answer(&omni);
    let mut stream = api.events("POST", "/v1/sessions/current/send", r#"{"prompt": "long"}"#);
    stream.until("text");
    let cancelled = api.post("/v1/sessions/current/cancel", "");
    assert_eq!(cancelled.status, 200, "{}", cancelled.body);
    assert_eq!(cancelled.json()["kept"], 2);
    let last = stream.until("error").pop().unwrap();
    assert_eq!(last.data["error"]["kind"], "cancelled");
    let history = api.get("/v1/sessions/current/history").json();
    assert_eq!(history["head"], 1);
    assert_eq!(history["entries"][1]["model"]["interrupted"], true);
    assert_eq!(history["entries"][1]["reverted"], true);
    let next = api.request(
        "POST",
        "/v1/sessions/current/send",
        &[("accept", "application/json")],
        r#"{"prompt": "short"}"#,
    );
    assert_eq!(next.status, 200, "{}", next.body);
    let sent = omni.fake().requests().last().unwrap().body.clone();
    assert!(!sent.contains("partial"), "{sent}");
    let idle = api.post("/v1/sessions/current/cancel", "");
    assert!(idle.error(409, "wrong_state").contains("nothing to cancel"));
    gate.open();
}

#[test]
fn events_follow_another_clients_send_and_a_client_that_leaves_mid_answer_loses_nothing() {
    let omni = Omni::start();
    let api = omni.api();
    new_session(&api);
    let follower = omni.api();
    let mut following = follower.events("GET", "/v1/sessions/current/events", "");
    assert_eq!(following.until("attached")[0].data["session"]["head"], 0);
    let gate = held_answer(&omni);
    {
        let mut leaving = api.events("POST", "/v1/sessions/current/send", r#"{"prompt": "hi"}"#);
        leaving.until("text");
    } // The sender disconnects mid-answer.
    let seen = following.until("text");
    assert_eq!(seen[0].name, "prompt_stored");
    gate.open();
    let answered = following.until("answered").pop().unwrap();
    assert_eq!(answered.data["node"], 2);
    let history = api.get("/v1/sessions/current/history").json();
    assert_eq!(
        history["head"], 2,
        "the answer was stored without its client"
    );
    assert_eq!(
        history["entries"][1]["text"],
        "partial answer never finished"
    );
    omni.ctl(&["undo"]).ok();
    assert_eq!(following.until("moved").pop().unwrap().data["to"], 1);
}

#[test]
fn tool_results_recovery_resume_errors_bundle_and_replay_over_http() {
    let omni = Omni::start();
    let api = omni.api();
    let tools = std::fs::read_to_string(tools_file(&omni)).unwrap();
    let created = api.post("/v1/sessions", &format!(r#"{{"tools": {tools}}}"#));
    assert_eq!(created.status, 201, "{}", created.body);
    omni.fake().push([Reply::Answer(Answer::calls([(
        "get_weather",
        json!({"city": "Paris"}),
        Some("c1"),
    )]))]);
    let mut stream = api.events(
        "POST",
        "/v1/sessions/current/send",
        r#"{"prompt": "weather?"}"#,
    );
    let calls = stream.until("result").pop().unwrap();
    assert_eq!(calls.data["pending_calls"][0]["name"], "get_weather");
    let mut continued = api.events(
        "POST",
        "/v1/sessions/current/tool-results",
        r#"{"name": "get_weather", "call_id": "c1", "response": {"celsius": 21}}"#,
    );
    assert_eq!(continued.until("result").pop().unwrap().data["node"], 4);

    let (session, _) = poisoned_by_a_400(&omni, "poison");
    let refused = api.request(
        "POST",
        &format!("/v1/sessions/{session}/send"),
        &[("accept", "application/json")],
        r#"{"prompt": "x"}"#,
    );
    refused.error(409, "needs_recovery");
    assert_eq!(
        refused.json()["error"]["options"],
        json!(["compact", "deep", "clear", "ignore", "retry"])
    );
    let errors = api.get(&format!("/v1/errors?session={session}")).json();
    let error_id = errors["errors"][0]["id"].as_str().unwrap().to_string();
    let bundle = api.get(&format!("/v1/errors/bundle?session={session}"));
    assert_eq!(bundle.status, 200);
    assert!(
        bundle.headers["content-disposition"]
            .to_str()
            .unwrap()
            .contains("omni-bundle-")
    );
    assert!(bundle.json()["errors"].is_array(), "{}", bundle.body);
    let replayed = api.post(&format!("/v1/errors/{error_id}/replay"), "");
    assert_eq!(replayed.status, 200, "{}", replayed.body);
    let recovered = api.post(
        &format!("/v1/sessions/{session}/recover"),
        r#"{"action": "deep"}"#,
    );
    let mut recovered = recovered;
    if recovered.content_type.starts_with("text/event-stream") {
        assert!(
            recovered.body.contains("event: result"),
            "{}",
            recovered.body
        );
        recovered.status = 200;
    }
    assert_eq!(recovered.status, 200, "{}", recovered.body);
    let resumed = api
        .post(&format!("/v1/sessions/{session}/resume"), "")
        .json();
    assert_eq!(resumed["was_suspended"], false);
    let document = api.get("/v1/openapi.json").json();
    assert_eq!(document["openapi"], "3.1.0");
}

#[test]
fn bad_requests_get_the_documented_errors_and_change_nothing() {
    let omni = Omni::start();
    let api = omni.api();
    let id = new_session(&api);
    api.get("/v1/nowhere").error(404, "not_found");
    api.get("/v1/sessions/ffffffff").error(404, "not_found");
    api.post("/v1/sessions/current/send", "{not json")
        .error(400, "invalid_request");
    api.post("/v1/sessions/current/send", r#"{"text": "wrong field"}"#)
        .error(400, "invalid_request");
    api.post("/v1/sessions/current/send", "[1, 2]")
        .error(400, "invalid_request");
    api.post("/v1/sessions/current/checkout", r#"{"node": 99}"#)
        .error(404, "not_found");
    api.post("/v1/sessions/current/recover", r#"{"action": "explode"}"#)
        .error(400, "invalid_request");
    api.post("/v1/sessions/current/undo", "")
        .error(409, "wrong_state");
    let huge = format!(r#"{{"prompt": "{}"}}"#, "x".repeat(17 * 1024 * 1024));
    api.post("/v1/sessions/current/send", &huge)
        .error(413, "invalid_request");
    let wrong_method = api.request("DELETE", "/v1/status", &[], "");
    assert_eq!(wrong_method.status, 405);
    let session = api.get(&format!("/v1/sessions/{id}")).json();
    assert_eq!(session["nodes"], 0, "nothing changed");
    assert!(
        omni.fake().requests().is_empty(),
        "nothing reached the model"
    );
}

/// The daemon's TCP address, as `omnictl status` reports it.
fn tcp_address(omni: &Omni) -> std::net::SocketAddr {
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(
        status["api_socket"],
        omni.dir().join("run/api.sock").display().to_string(),
        "{status}"
    );
    let text = omni.ctl(&["status"]).ok().stdout;
    assert!(text.contains("(bearer token)"), "{text}");
    status["http_address"].as_str().unwrap().parse().unwrap()
}

#[test]
fn on_tcp_every_request_needs_the_token_from_the_private_token_file() {
    let omni = Omni::builder()
        .args(&["--http-listen", "127.0.0.1:0"])
        .start();
    let addr = tcp_address(&omni);
    let token_file = omni.socket.with_file_name("api.token");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let token = std::fs::read_to_string(&token_file)
        .unwrap()
        .trim()
        .to_string();
    assert!(token.len() >= 32);
    let anonymous = Api::new(Target::Tcp(addr), None);
    anonymous.get("/v1/status").error(401, "invalid_request");
    anonymous
        .post("/v1/sessions", "{}")
        .error(401, "invalid_request");
    let wrong = Api::new(Target::Tcp(addr), Some("0".repeat(token.len())));
    wrong.get("/v1/status").error(401, "invalid_request");
    // The scheme's name is case-insensitive (RFC 9110).
    for scheme in ["bearer", "BEARER"] {
        let value = format!("{scheme} {token}");
        let reply = anonymous.request("GET", "/v1/status", &[("authorization", &value)], "");
        assert_eq!(reply.status, 200, "{scheme}: {}", reply.body);
    }
    let right = Api::new(Target::Tcp(addr), Some(token));
    assert_eq!(right.get("/v1/status").status, 200);
    assert_eq!(right.post("/v1/sessions", "{}").status, 201);
    assert_eq!(
        omni.api().get("/v1/sessions").json()["sessions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_non_loopback_address_is_refused_at_start() {
    let omni = Omni::start();
    let output = omni
        .daemon_command_on(&omni.dir().join("other/omnid.sock"))
        .args(["--http-listen", "0.0.0.0:8080"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not a loopback address"), "{stderr}");
}

#[test]
fn retry_answers_the_pending_prompt_again_and_previews_recovery() {
    let omni = Omni::builder()
        .config("[retry]\nmax_attempts = 1\ninitial_delay_ms = 10\n")
        .start();
    let api = omni.api();
    let id = new_session(&api);
    omni.fake().push([omni_tests::scenario::overloaded()]);
    let json_only = [("accept", "application/json")];
    let send = format!("/v1/sessions/{id}/send");
    let failed = api.request("POST", &send, &json_only, r#"{"prompt": "once"}"#);
    assert_eq!(failed.status, 502, "{}", failed.body);
    let retry = format!("/v1/sessions/{id}/retry");
    let answered = api.request("POST", &retry, &json_only, "");
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(answered.json()["prompt_node"], 1);
    assert_eq!(answered.json()["node"], 2);
    let again = api.request("POST", &retry, &json_only, "");
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!(again.json()["error"]["kind"], "wrong_state");

    // A session that needs recovery says what each choice would take out.
    let (poisoned, _) = poisoned_by_a_400(&omni, "weather?");
    let summary = api.get(&format!("/v1/sessions/{poisoned}")).json();
    let choices = summary["recovery_choices"].as_array().unwrap();
    let drops: Vec<(String, Value)> = choices
        .iter()
        .map(|c| {
            (
                c["action"].as_str().unwrap().to_string(),
                c["drops"].clone(),
            )
        })
        .collect();
    assert_eq!(
        drops,
        [
            ("deep".to_string(), json!([3, 2, 1])),
            ("clear".to_string(), json!([3])),
            ("ignore".to_string(), json!([])),
            ("retry".to_string(), json!([])),
        ]
    );
}
