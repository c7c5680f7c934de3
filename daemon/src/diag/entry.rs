//! What one diagnostic entry says: the `api_errors.log` block and the structured JSON
//! record. Pure functions over a [`Report`]; writing them is `files.rs`'s job.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::provider::{Phase, Redactor};
use crate::resilience::FailureClass;

/// The response that came back, if any.
#[derive(Debug, Clone)]
pub struct ResponseInfo {
    /// HTTP status.
    pub status: u16,
    /// The headers that matter.
    pub headers: Vec<(String, String)>,
    /// The raw body.
    pub body: String,
}

/// One attempt of a send, for the timeline.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AttemptTrace {
    /// Its number, from 1.
    pub attempt: u32,
    /// When it started, RFC 3339 UTC.
    pub started_at: String,
    /// How long it ran.
    pub duration_ms: u64,
    /// The HTTP status, if a response arrived.
    pub status: Option<u16>,
    /// The failure's class, if it failed.
    pub class: Option<String>,
    /// The wait before the next attempt, if there was one.
    pub wait_ms: Option<u64>,
}

/// Everything known about one failure, as the daemon hands it over for the record.
#[derive(Debug, Clone)]
pub struct Report {
    /// The session, or `None` for a request that passed through the
    /// proxy without being recorded.
    pub session: Option<Uuid>,
    /// The node being answered (the prompt or the function results).
    pub node: u64,
    /// Which attempt failed.
    pub attempt: u32,
    /// The attempt budget.
    pub max_attempts: u32,
    /// What failed: an attempt (in which phase, of which class), or preflight.
    pub cause: Cause,
    /// The error with its cause chain.
    pub message: String,
    /// The response, if one arrived.
    pub response: Option<ResponseInfo>,
    /// The URL the request went (or would have gone) to.
    pub request_url: String,
    /// The request's headers (a key's value never: its header is named, its value
    /// redacted).
    pub request_headers: Vec<(String, String)>,
    /// The request body exactly as sent (or as it would have been).
    pub request_body: String,
    /// Every attempt so far.
    pub timeline: Vec<AttemptTrace>,
}

impl Report {
    /// What the failure belongs to, as logs and records name it: the session's id, or
    /// `proxy`.
    pub fn subject(&self) -> String {
        self.session
            .map_or_else(|| PROXY_SUBJECT.to_string(), |id| id.to_string())
    }
}

/// The subject of a failure that belongs to no session (a request through the proxy).
pub const PROXY_SUBJECT: &str = "proxy";

/// What a failure was: an attempt the API failed, or a request preflight refused before
/// it was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// An attempt failed.
    Attempt {
        /// Before any response byte, or during the stream.
        phase: Phase,
        /// How it was classified.
        class: FailureClass,
    },
    /// Preflight validation refused the request; nothing was sent.
    Preflight,
    /// The context is over the model's window by Omni's estimate; nothing was sent.
    Window,
}

impl Cause {
    /// The phase's name in the log and the records: `connect`, `stream` or `preflight`.
    pub fn phase(&self) -> &'static str {
        match self {
            Cause::Attempt {
                phase: Phase::Connect,
                ..
            } => "connect",
            Cause::Attempt {
                phase: Phase::Stream,
                ..
            } => "stream",
            Cause::Preflight | Cause::Window => "preflight",
        }
    }

    /// The class's name in the log and the records.
    pub fn class(&self) -> &'static str {
        match self {
            Cause::Attempt { class, .. } => class.name(),
            Cause::Preflight => "preflight",
            Cause::Window => "context_too_long",
        }
    }
}

/// The block appended to `api_errors.log` (secrets removed).
pub fn log_entry(id: &str, time: &str, report: &Report, redactor: &Redactor) -> String {
    let response = match &report.response {
        Some(response) => {
            let mut line = format!("HTTP {}", response.status);
            for (name, value) in &response.headers {
                line.push_str(&format!("; {name}: {}", redactor.header(name, value)));
            }
            line.push_str(&format!("; body: {}", response.body));
            line
        }
        None if report.cause == Cause::Preflight && report.session.is_none() => {
            "none yet (found before the proxy forwarded the request)".to_string()
        }
        None if report.cause == Cause::Preflight => {
            "none (the request was not sent: preflight validation)".to_string()
        }
        None => "none (no HTTP response arrived)".to_string(),
    };
    let text = format!(
        "[{time}] ERROR: error {id}, session {}, node {}, attempt {}/{}, phase {}, class {}\n\
         Message: {}\n\
         Response: {response}\n\
         ---\n\
         [{time}] Conversation History Snapshot\n\
         Data: {}\n\n",
        report.subject(),
        report.node,
        report.attempt,
        report.max_attempts,
        report.cause.phase(),
        report.cause.class(),
        report.message,
        report.request_body
    );
    redactor.text(&text)
}

/// The request body, embedded in the record verbatim, byte for byte, so a replay sends
/// exactly what failed. (A body that is not JSON, which Omni never sends, is kept as a
/// JSON string.)
#[derive(Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Body(Box<RawValue>);

impl Body {
    fn new(text: String) -> Self {
        if let Ok(raw) = RawValue::from_string(text.clone()) {
            return Body(raw);
        }
        // A quoted string is always valid JSON, so this fallback cannot fail in practice.
        let quoted = serde_json::to_string(&text).unwrap_or_default();
        Body(RawValue::from_string(quoted).unwrap_or_else(|_| RawValue::NULL.to_owned()))
    }

    /// The body's exact text.
    pub fn text(&self) -> &str {
        self.0.get()
    }
}

/// The request part of a record.
#[derive(Debug, Serialize, Deserialize)]
pub struct RequestRecord {
    /// Always POST.
    pub method: String,
    /// The endpoint (without any key).
    pub url: String,
    /// The request's headers, secrets redacted.
    pub headers: BTreeMap<String, String>,
    /// The body exactly as sent.
    pub body: Body,
}

/// The response part of a record.
#[derive(Debug, Serialize, Deserialize)]
pub struct ResponseRecord {
    /// HTTP status.
    pub status: u16,
    /// The headers that matter.
    pub headers: BTreeMap<String, String>,
    /// The raw body.
    pub body: String,
}

/// The structured record written to `errors/<date>/<session>/<id>.json`.
#[derive(Debug, Serialize, Deserialize)]
pub struct ErrorRecord {
    /// The error's id.
    pub id: String,
    /// When, RFC 3339 UTC.
    pub time: String,
    /// The session.
    pub session: String,
    /// The node being answered.
    pub node: u64,
    /// Which attempt failed.
    pub attempt: u32,
    /// The attempt budget.
    pub max_attempts: u32,
    /// `connect`, `stream` or `preflight`.
    pub phase: String,
    /// The failure's class.
    pub class: String,
    /// The error with its cause chain.
    pub message: String,
    /// What was sent.
    pub request: RequestRecord,
    /// What came back.
    pub response: Option<ResponseRecord>,
    /// Every attempt of the send so far.
    pub attempts: Vec<AttemptTrace>,
    /// The daemon that wrote it.
    pub daemon: Value,
    /// Its configuration, secrets redacted.
    pub config: Value,
}

/// Builds the structured record for a report (secrets removed).
pub fn json_record(
    id: &str,
    time: &str,
    report: &Report,
    redactor: &Redactor,
    config: &Value,
) -> ErrorRecord {
    let headers = |pairs: &[(String, String)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| (name.clone(), redactor.header(name, value)))
            .collect()
    };
    ErrorRecord {
        id: id.to_string(),
        time: time.to_string(),
        session: report.subject(),
        node: report.node,
        attempt: report.attempt,
        max_attempts: report.max_attempts,
        phase: report.cause.phase().to_string(),
        class: report.cause.class().to_string(),
        message: redactor.text(&report.message),
        request: RequestRecord {
            method: "POST".into(),
            url: redactor.text(&report.request_url),
            headers: headers(&report.request_headers),
            body: Body::new(redactor.text(&report.request_body)),
        },
        response: report.response.as_ref().map(|r| ResponseRecord {
            status: r.status,
            headers: headers(&r.headers),
            body: redactor.text(&r.body),
        }),
        attempts: report.timeline.clone(),
        daemon: json!({ "version": env!("CARGO_PKG_VERSION") }),
        config: config.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            session: Some(Uuid::nil()),
            node: 3,
            attempt: 2,
            max_attempts: 5,
            cause: Cause::Attempt {
                phase: Phase::Connect,
                class: FailureClass::BadRequest {
                    mismatched_function_parts: false,
                },
            },
            message: "the model API answered HTTP 400 INVALID_ARGUMENT: nope".into(),
            response: Some(ResponseInfo {
                status: 400,
                headers: vec![("content-type".into(), "application/json".into())],
                body: "{\"error\": {\"code\": 400}}".into(),
            }),
            request_url: "http://h/v1beta/models/m:streamGenerateContent?alt=sse".into(),
            request_headers: vec![
                ("content-type".into(), "application/json".into()),
                ("x-goog-api-key".into(), "SECRET-KEY".into()),
            ],
            request_body: "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"SECRET-KEY in a prompt\"}]}]}".into(),
            timeline: vec![],
        }
    }

    #[test]
    fn the_block_has_the_documented_shape_and_no_key() {
        let redactor = Redactor::new(Some("SECRET-KEY"));
        let entry = log_entry("e1", "2026-11-22T01:00:00.000Z", &report(), &redactor);
        let lines: Vec<&str> = entry.lines().collect();
        assert_eq!(
            lines[0],
            "[2026-11-22T01:00:00.000Z] ERROR: error e1, session 00000000-0000-0000-0000-000000000000, \
             node 3, attempt 2/5, phase connect, class bad_request"
        );
        assert_eq!(
            lines[1],
            "Message: the model API answered HTTP 400 INVALID_ARGUMENT: nope"
        );
        assert_eq!(
            lines[2],
            "Response: HTTP 400; content-type: application/json; body: {\"error\": {\"code\": 400}}"
        );
        assert_eq!(lines[3], "---");
        assert_eq!(
            lines[4],
            "[2026-11-22T01:00:00.000Z] Conversation History Snapshot"
        );
        assert!(lines[5].starts_with("Data: {\"contents\""));
        assert!(!entry.contains("SECRET-KEY"));
    }

    #[test]
    fn the_record_keeps_the_body_verbatim_through_a_round_trip() {
        let mut report = report();
        // Unsorted keys and odd spacing: a re-serialised value would change them.
        report.request_body = "{\"z\": 1,  \"contents\":[]}".into();
        let record = json_record("e1", "t", &report, &Redactor::default(), &json!({}));
        let written = serde_json::to_string_pretty(&record).unwrap();
        let read: ErrorRecord = serde_json::from_str(&written).unwrap();
        assert_eq!(read.request.body.text(), report.request_body);
        assert_eq!(read.request.headers["x-goog-api-key"], "[REDACTED]");
        assert_eq!(read.response.unwrap().status, 400);
        let as_value: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(
            as_value["request"]["body"]["z"], 1,
            "the body is JSON in the file, not a string"
        );
    }

    #[test]
    fn a_body_that_is_not_json_is_kept_as_a_string() {
        assert_eq!(Body::new("not { json".into()).text(), "\"not { json\"");
    }
}
