//! The Gemini-compatible proxy end to end: a real HTTP client in front of `omnid
//! --proxy-listen`, the fault-injecting fake Gemini server behind it: forwarding, healing,
//! keys, history checks, the official SDK.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::{TEST_API_KEY, any_file_holds};
use omni_tests::proxy::*;
use omni_tests::scenario::overloaded;
use serde_json::{Value, json};

#[test]
fn plain_and_streamed_requests_pass_through_with_the_key_in_a_header() {
    let (omni, api) = start(&[]);
    let answer = Answer::text(["Hello ", "from ", "upstream."]);
    omni.fake().push([Reply::Answer(answer.clone())]);
    let streamed = post(&api, STREAM, BODY);
    assert_eq!(streamed.status, 200, "{}", streamed.body);
    assert_eq!(streamed.content_type, "text/event-stream");
    let expected: Vec<Value> = answer
        .events("fake-model")
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    assert_eq!(events(&streamed.body), expected);
    let upstream = omni.fake().requests().pop().unwrap();
    assert_eq!(upstream.body, BODY, "the body goes upstream byte for byte");
    assert_eq!(upstream.target, STREAM);
    assert_eq!(upstream.header("x-goog-api-key"), Some(TEST_API_KEY));

    // A plain request, the key in the query: upstream gets it in the header only.
    let whole = api.request("POST", &format!("{WHOLE}?key={TEST_API_KEY}"), &[], BODY);
    assert_eq!(whole.status, 200, "{}", whole.body);
    assert!(
        whole.json()["candidates"][0]["content"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hello")
    );
    let upstream = omni.fake().requests().pop().unwrap();
    assert_eq!(upstream.target, WHOLE, "no key in the URL");
    assert_eq!(upstream.header("x-goog-api-key"), Some(TEST_API_KEY));

    let key = [("x-goog-api-key", TEST_API_KEY)];
    let tokens = api.request("POST", "/v1/models/fake-model:countTokens", &key, BODY);
    assert_eq!(tokens.status, 200, "{}", tokens.body);
    assert!(tokens.json()["totalTokens"].is_u64());
    let models = api.request("GET", "/v1beta/models", &key, "");
    assert_eq!(models.json()["models"][0]["name"], "models/fake-model");
    let one = api.request("GET", "/v1beta/models/fake-model", &key, "");
    assert_eq!(one.json()["name"], "models/fake-model");
    let unknown = api.request("GET", "/v2/models", &key, "");
    assert_eq!(unknown.status, 404);
    assert_eq!(unknown.json()["error"]["status"], "NOT_FOUND");
    assert_eq!(proxy_status(&omni)["requests"], 5);
}

#[test]
fn transient_failures_before_the_answer_heal_invisibly() {
    let (omni, api) = start(&[]);
    let ok = || Reply::Answer(Answer::text(["fine"]));
    omni.fake().push([overloaded(), overloaded(), ok()]);
    let healed = post(&api, STREAM, BODY);
    assert_eq!(healed.status, 200, "{}", healed.body);
    assert_eq!(text_of(&events(&healed.body)), "fine");
    assert_eq!(omni.fake().request_count(), 3);

    let limited = Reply::Status {
        status: 429,
        headers: vec![("retry-after".into(), "1".into())],
        body: json!({"error": {"code": 429, "message": "Resource exhausted.", "status": "RESOURCE_EXHAUSTED"}}).to_string(),
    };
    omni.fake().push([limited, Reply::Reset, ok()]);
    let healed = post(&api, WHOLE, BODY);
    assert_eq!(healed.status, 200, "{}", healed.body);
    assert_eq!(proxy_status(&omni)["healed"], 2);
    // The 429's Retry-After was honoured: the wait after it was at least a second.
    let listed = omni.ctl(&["--json", "logs", "list"]).ok().json();
    let limited = listed["errors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["class"] == "rate_limited")
        .unwrap_or_else(|| panic!("{listed}"))
        .clone();
    // The plain request began as the recorded stream did: its failure is filed there.
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(
        limited["session"], sessions["sessions"][0]["id"],
        "{sessions}"
    );
    let id = limited["id"].as_str().unwrap();
    let bundle = omni
        .ctl(&["logs", "export", "--error", id, "-o", "-"])
        .ok()
        .json();
    let text = bundle.to_string();
    let wait = bundle["errors"][0]["attempts"][0]["wait_ms"].as_u64();
    assert!(wait.is_some_and(|ms| ms >= 1000), "{text}");
    assert!(
        text.contains("\"hello\""),
        "the request's contents are the snapshot: {text}"
    );
}

#[test]
fn a_stream_cut_mid_answer_continues_seamlessly_or_ends_with_an_api_error() {
    let (omni, api) = start(&[]);
    let answer = Answer::text(["one ", "two ", "three ", "four"]);
    omni.fake().push([
        Reply::CutAfter {
            chunks: 2,
            answer: answer.clone(),
        },
        Reply::Answer(answer.clone()),
    ]);
    let joined = post(&api, STREAM, BODY);
    assert_eq!(joined.status, 200);
    let got = events(&joined.body);
    assert_eq!(got.len(), 4, "no event twice: {}", joined.body);
    assert_eq!(text_of(&got), "one two three four");

    omni.fake().push([
        Reply::CutAfter {
            chunks: 2,
            answer: answer.clone(),
        },
        Reply::Answer(Answer::text(["another ", "answer"])),
    ]);
    let ended = post(&api, STREAM, BODY);
    let got = events(&ended.body);
    assert_eq!(text_of(&got), "one two ");
    let error = &got.last().unwrap()["error"];
    assert_eq!(error["status"], "UNAVAILABLE", "{}", ended.body);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("began differently")
    );
}

#[test]
fn healed_transport_failures_are_written_down_like_healed_statuses() {
    let (omni, api) = start(&[]);
    let answer = Answer::text(["one ", "two ", "three"]);
    let cut = Reply::CutAfter {
        chunks: 1,
        answer: answer.clone(),
    };
    omni.fake()
        .push([Reply::Reset, cut, Reply::Answer(answer.clone())]);
    let healed = post(&api, STREAM, BODY);
    assert_eq!(healed.status, 200, "{}", healed.body);
    assert_eq!(text_of(&events(&healed.body)), "one two three");
    assert_eq!(omni.fake().request_count(), 3);
    assert_eq!(proxy_status(&omni)["healed"], 1);
    // Both failures the client never saw are in the log: the reset before the answer
    // began, and the cut in the middle of it.
    let log = std::fs::read_to_string(omni.log_dir.join("api_errors.log")).unwrap();
    let entries: Vec<&str> = log.lines().filter(|l| l.contains("ERROR: error")).collect();
    assert_eq!(entries.len(), 2, "{log}");
    assert!(entries[0].contains("attempt 1/5, phase connect"), "{log}");
    assert!(entries[1].contains("attempt 2/5, phase stream"), "{log}");
    assert!(entries.iter().all(|e| e.contains("session proxy")), "{log}");
    let listed = omni.ctl(&["--json", "logs", "list"]).ok().json();
    assert_eq!(listed["errors"].as_array().unwrap().len(), 2, "{listed}");
}

#[test]
fn a_400_passes_through_unchanged_and_is_logged() {
    let (omni, api) = start(&[]);
    let rejected = Reply::error(
        400,
        "INVALID_ARGUMENT",
        "Please ensure that multiturn requests alternate between user and model.",
    );
    let Reply::Status { body, .. } = rejected.clone() else {
        unreachable!()
    };
    omni.fake().push([rejected]);
    let reply = post(&api, STREAM, BODY);
    assert_eq!(reply.status, 400);
    assert_eq!(reply.body, body, "the upstream body, unchanged");
    assert_eq!(omni.fake().request_count(), 1, "a 400 is not retried");
    let listed = omni.ctl(&["logs", "list"]).ok().stdout;
    assert!(listed.contains("proxy"), "{listed}");
    assert!(
        listed.contains("alternate between user and model"),
        "{listed}"
    );
    assert_eq!(proxy_status(&omni)["failed"], 1);
    // The recorded request can be replayed (it succeeds now: the fake answers).
    let errors = omni.ctl(&["--json", "logs", "list"]).ok().json();
    let id = errors["errors"][0]["id"].as_str().unwrap().to_string();
    let replayed = omni.ctl(&["replay", &id]).ok().stdout;
    assert!(replayed.contains("succeeds now"), "{replayed}");
    assert_eq!(omni.fake().requests().pop().unwrap().body, BODY);
}

#[test]
fn only_the_daemons_key_is_let_through_and_no_key_reaches_the_disk() {
    let (omni, api) = start(&[]);
    let wrong = api.request("POST", STREAM, &[("x-goog-api-key", "someone-else")], BODY);
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.json()["error"]["status"], "UNAUTHENTICATED");
    let none = api.request("POST", STREAM, &[], BODY);
    assert_eq!(none.status, 401);
    assert_eq!(
        omni.fake().request_count(),
        0,
        "nothing refused goes upstream"
    );
    omni.fake()
        .push([Reply::error(400, "INVALID_ARGUMENT", "Bad request.")]);
    post(&api, STREAM, BODY);
    let key = TEST_API_KEY.as_bytes();
    assert!(
        !any_file_holds(&omni.data_dir, key),
        "the key is in the store"
    );
    assert!(
        !any_file_holds(&omni.log_dir, key),
        "the key is in the logs"
    );
}

#[test]
fn with_accept_any_key_the_clients_own_key_goes_upstream_and_stays_off_the_disk() {
    let (omni, api) = start(&["--proxy-accept-any-key"]);
    let theirs = "client-key-XYZ-987";
    let echo = format!("Request from {theirs} has an invalid argument.");
    omni.fake()
        .push([Reply::error(400, "INVALID_ARGUMENT", &echo)]);
    let reply = api.request("POST", STREAM, &[("x-goog-api-key", theirs)], BODY);
    assert_eq!(reply.status, 400);
    let upstream = omni.fake().requests().pop().unwrap();
    assert_eq!(upstream.header("x-goog-api-key"), Some(theirs));
    assert!(
        !any_file_holds(&omni.log_dir, theirs.as_bytes()),
        "the client's key is in the logs"
    );
    assert!(!omni.daemon_stderr().contains(theirs));
}

#[test]
fn a_client_that_goes_away_cancels_the_upstream_request() {
    use std::io::{Read, Write};
    let (omni, _) = start(&[]);
    let address = proxy_status(&omni)["address"].as_str().unwrap().to_string();
    let gate = omni_tests::scenario::held_answer(&omni);
    let mut client = std::net::TcpStream::connect(&address).unwrap();
    let request = format!(
        "POST {STREAM} HTTP/1.1\r\nhost: {address}\r\nx-goog-api-key: {TEST_API_KEY}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    client.write_all(request.as_bytes()).unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("answer ") {
        let n = client.read(&mut buffer).unwrap();
        assert!(n > 0, "the stream ended early");
        seen.extend_from_slice(&buffer[..n]);
    }
    drop(client);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while omni.fake().hangups() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the upstream request was not dropped"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    gate.open();
}

/// The official Python SDK (`google-genai`, which `scripts/test` installs in the tests'
/// virtual environment) pointed at the proxy with
/// nothing but its base URL: a 503 before each answer is healed where the SDK would
/// have failed.
#[test]
fn the_official_python_sdk_works_through_the_proxy_unchanged() {
    let (omni, _) = start(&[]);
    let address = proxy_status(&omni)["address"].as_str().unwrap().to_string();
    omni.fake().push([overloaded()]);
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/python/gemini_sdk.py"
    );
    let output = omni_tests::python::command(script)
        .arg(format!("http://{address}"))
        .arg("fake-model")
        .env("GEMINI_API_KEY", TEST_API_KEY)
        .env_remove("GOOGLE_API_KEY")
        .output()
        .unwrap_or_else(|e| panic!("{e}: {}", omni_tests::python::hint()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the SDK failed ({}):\n{stdout}\n{stderr}",
        omni_tests::python::hint()
    );
    omni_tests::python::assert_sdk_example_answered(&stdout);
    assert_eq!(proxy_status(&omni)["healed"], 1);
}

fn poisoned_body() -> String {
    json!({"contents": [
        content("user", json!([{"text": "weather?"}])),
        content("model", json!([{"text": "let me look"}, {"functionCall": {"name": "get_weather", "args": {}}}])),
        content("user", json!([{"text": "never mind, hello"}])),
    ]})
    .to_string()
}

#[test]
fn a_poisoned_history_is_named_in_the_log_and_forwarded_unchanged_by_default() {
    let (omni, api) = start(&[]);
    let body = poisoned_body();
    let reply = post(&api, STREAM, &body);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(
        omni.fake().requests().pop().unwrap().body,
        body,
        "forwarded unchanged"
    );
    let listed = omni.ctl(&["logs", "list"]).ok().stdout;
    assert!(listed.contains("preflight"), "{listed}");
    let log = std::fs::read_to_string(omni.log_dir.join("api_errors.log")).unwrap();
    assert!(
        log.contains("content 2"),
        "the offending turn is named: {log}"
    );
    assert!(log.contains("forwarded unchanged"), "{log}");
}

#[test]
fn with_repair_the_known_poisonings_are_fixed_and_what_changed_is_written_down() {
    let (omni, api) = start(&["--proxy-history", "repair"]);
    let reply = post(&api, STREAM, &poisoned_body());
    assert_eq!(reply.status, 200, "{}", reply.body);
    let sent = omni.fake().requests().pop().unwrap().json();
    assert_eq!(
        sent["contents"][1]["parts"],
        json!([{"text": "let me look"}]),
        "the unanswered call is dropped, the text kept"
    );
    let log = std::fs::read_to_string(omni.log_dir.join("api_errors.log")).unwrap();
    assert!(
        log.contains("dropped an unanswered function call from content 2"),
        "{log}"
    );
}

#[test]
fn a_stream_asked_for_without_sse_arrives_as_the_apis_json_array() {
    let (omni, api) = start(&[]);
    let answer = Answer::text(["as ", "an ", "array"]);
    omni.fake().push([Reply::Answer(answer.clone())]);
    let path = "/v1beta/models/fake-model:streamGenerateContent";
    let reply = post(&api, path, BODY);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert!(
        reply.content_type.starts_with("application/json"),
        "{}",
        reply.content_type
    );
    let items: Vec<Value> = serde_json::from_str(&reply.body).unwrap();
    let expected: Vec<Value> = answer
        .events("fake-model")
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    assert_eq!(items, expected);
    assert_eq!(
        omni.fake().requests().pop().unwrap().target,
        STREAM,
        "upstream streams SSE"
    );
}

#[test]
fn the_demo_model_answers_plain_and_streamed_requests_through_the_proxy() {
    let (_omni, api) = start(&["--demo", "--proxy-accept-any-key"]);
    let key = [("x-goog-api-key", "any-key")];
    let whole = api.request("POST", WHOLE, &key, BODY);
    assert_eq!(whole.status, 200, "{}", whole.body);
    let text = whole.json()["candidates"][0]["content"]["parts"][0]["text"].clone();
    assert!(
        text.as_str().unwrap().starts_with("You said: \"hello\"."),
        "{text}"
    );
    let streamed = api.request("POST", STREAM, &key, BODY);
    assert!(text_of(&events(&streamed.body)).starts_with("You said: \"hello\"."));
}
