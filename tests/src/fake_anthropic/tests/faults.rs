//! Scripted faults: each one as the client sees it, then the echo again.

use std::time::{Duration, Instant};

use serde_json::json;

use super::{
    FakeAnthropic, Reply, SDK_HEADERS, messages, request, send_with, stream, text_of, user,
};
use crate::fake_anthropic::{Answer, Gate};

/// The error object of an error body, checked to be in Anthropic's shape.
fn error_of(reply: &crate::fake_wire::client::Response) -> (u16, String, String) {
    let body = reply.json();
    assert_eq!(body["type"], "error");
    let error = &body["error"];
    let text = |key: &str| error[key].as_str().unwrap().to_string();
    (reply.status, text("type"), text("message"))
}

#[test]
fn error_statuses_come_in_anthropics_shape_with_retry_after() {
    let fake = FakeAnthropic::start().unwrap();
    fake.push([
        Reply::rate_limited(3),
        Reply::overloaded(),
        Reply::api_error(),
        Reply::unauthenticated(),
        Reply::forbidden(),
        Reply::prompt_too_long(),
        Reply::Reset,
    ]);
    let body = request(json!([user("hi")]), true);
    let limited = messages(&fake, &body);
    assert_eq!(limited.headers["retry-after"], "3");
    assert_eq!(error_of(&limited).1, "rate_limit_error");
    assert_eq!(error_of(&limited).0, 429);
    let expected = [
        (529, "overloaded_error"),
        (500, "api_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (400, "invalid_request_error"),
    ];
    for (status, kind) in expected {
        let (got_status, got_kind, message) = error_of(&messages(&fake, &body));
        assert_eq!((got_status, got_kind.as_str()), (status, kind), "{message}");
        if status == 400 {
            assert!(message.starts_with("prompt is too long"), "{message}");
        }
    }
    assert!(
        send_with(&fake, "POST", "/v1/messages", SDK_HEADERS, &body).is_err(),
        "reset"
    );
    assert!(text_of(&messages(&fake, &body).json_or_stream()).starts_with("You said: hi."));
}

trait Whole {
    /// The message of a whole reply, streamed or not.
    fn json_or_stream(&self) -> serde_json::Value;
}

impl Whole for crate::fake_wire::client::Response {
    fn json_or_stream(&self) -> serde_json::Value {
        if self.headers["content-type"] == "text/event-stream" {
            stream::assemble(&self.events())
        } else {
            self.json()
        }
    }
}

#[test]
fn a_cut_stream_breaks_off_and_an_error_event_ends_it() {
    let fake = FakeAnthropic::start().unwrap();
    let answer = Answer::text(["one ", "two ", "three"]);
    fake.push([
        Reply::Cut {
            answer: answer.clone(),
            after: 4,
        },
        Reply::overloaded_mid_stream(answer.clone(), 4),
        Reply::Cut {
            answer: answer.clone(),
            after: 0,
        },
        Reply::overloaded_mid_stream(answer, 0),
    ]);
    let body = request(json!([user("count")]), true);
    let cut = send_with(&fake, "POST", "/v1/messages", SDK_HEADERS, &body).unwrap();
    assert_eq!(cut.status, 200);
    assert!(cut.body.is_err(), "the body breaks off: {:?}", cut.body);

    let broken = messages(&fake, &body);
    let events = broken.events();
    let names: Vec<&str> = events.iter().map(|e| e.name.as_deref().unwrap()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "content_block_start",
            "ping",
            "content_block_delta",
            "error"
        ]
    );
    assert_eq!(
        events[4].json(),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
    assert_eq!(events[3].json()["delta"]["text"], "one ");

    // Not streamed: half a body then the drop; the error event becomes a 529.
    let mut whole = body;
    whole["stream"] = json!(false);
    let cut = send_with(&fake, "POST", "/v1/messages", SDK_HEADERS, &whole).unwrap();
    assert!(cut.body.is_err());
    assert_eq!(error_of(&messages(&fake, &whole)).0, 529);
}

#[test]
fn a_slow_reply_paces_its_events_and_a_held_one_counts_hangups() {
    let fake = FakeAnthropic::start().unwrap();
    let delay = Duration::from_millis(20);
    fake.push([Reply::Slow {
        answer: Answer::text(["a", "b"]),
        delay,
    }]);
    let started = Instant::now();
    let events = messages(&fake, &request(json!([user("hi")]), true)).events();
    assert!(started.elapsed() >= delay * events.len() as u32);
    assert_eq!(text_of(&stream::assemble(&events)), "ab");

    let gate = Gate::new();
    fake.push([Reply::HoldAfter {
        answer: Answer::text(["x"]),
        after: 2,
        gate: gate.clone(),
    }]);
    gate.open();
    let events = messages(&fake, &request(json!([user("hi")]), true)).events();
    assert_eq!(text_of(&stream::assemble(&events)), "x");

    // A client that gives up on a held stream is counted as a hangup.
    let held = Gate::new();
    fake.push([Reply::HoldAfter {
        answer: Answer::text(["x"]),
        after: 1,
        gate: held,
    }]);
    let url = fake.url();
    let address = url.strip_prefix("http://").unwrap().to_string();
    let mut socket = std::net::TcpStream::connect(address).unwrap();
    let body = request(json!([user("hi")]), true).to_string();
    let head = format!(
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: {}\r\nanthropic-version: v\r\ncontent-length: {}\r\n\r\n{body}",
        super::DEFAULT_KEY,
        body.len()
    );
    std::io::Write::write_all(&mut socket, head.as_bytes()).unwrap();
    // Read until the first event is in, so the fake is at its gate, then hang up.
    let mut received = Vec::new();
    while !String::from_utf8_lossy(&received).contains("message_start") {
        let mut piece = [0u8; 1024];
        let n = std::io::Read::read(&mut socket, &mut piece).unwrap();
        assert!(n > 0, "the held stream ended early");
        received.extend_from_slice(&piece[..n]);
    }
    drop(socket);
    let deadline = Instant::now() + Duration::from_secs(5);
    while fake.hangups() == 0 {
        assert!(Instant::now() < deadline, "the hangup was never seen");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(fake.hangups(), 1);
}
