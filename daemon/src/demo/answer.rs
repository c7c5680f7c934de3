//! What the demo model says to a generation request: what the trick its latest turn asks
//! for says, else an echo of that turn and how much context came with it.

use std::time::Duration;

use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::tricks::{self, Overloads, Trick};
use super::{FALLBACK_MODEL, MODEL};
use crate::model::PartContent;
use crate::provider::gemini::parts;
use crate::provider::gemini::wire::CandidateContent;

/// The part of a request the demo reads.
#[derive(Deserialize)]
pub struct DemoRequest {
    #[serde(default)]
    contents: Vec<CandidateContent>,
}

/// One piece of an answer: a streamed response carries one.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// A thought summary.
    Thought(String),
    /// Visible text.
    Text(String),
    /// A function call (its arguments as JSON).
    Call { name: String, args: Value },
}

/// An error in the API's shape.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub api_status: &'static str,
    pub message: String,
    pub details: Vec<Value>,
}

/// What the demo answers.
#[derive(Debug)]
pub enum Reply {
    /// An error status.
    Error(ApiError),
    /// A 200 saying the prompt was blocked (`promptFeedback.blockReason`).
    Blocked,
    /// An answer, streamed a piece at a time with `pause` between pieces.
    Answer { pieces: Vec<Piece>, pause: Duration },
}

/// The demo's reply to a generation request for `model` (`body` is the request as sent).
pub fn reply(request: &DemoRequest, model: &str, body: &[u8], overloads: &Overloads) -> Reply {
    let trick = tricks::asked(&latest_text(request));
    let pieces = match trick {
        Some(Trick::Rejected) => return Reply::Error(rejected()),
        Some(Trick::Overloaded) if overloads.fails_first(body) => {
            return Reply::Error(overloaded());
        }
        Some(Trick::OutOfQuota) if model == MODEL => return Reply::Error(out_of_quota()),
        Some(Trick::Blocked) => return Reply::Blocked,
        Some(Trick::Markdown) => vec![Piece::Text(tricks::MARKDOWN.into())],
        Some(Trick::Long) => tricks::long_answer().into_iter().map(Piece::Text).collect(),
        Some(Trick::ToolCall) => tool_call(),
        Some(Trick::Thinking) => {
            let thoughts = tricks::THOUGHTS
                .iter()
                .map(|t| Piece::Thought(t.to_string()));
            thoughts.chain(words(&echo(request, model))).collect()
        }
        _ => words(&echo(request, model)).collect(),
    };
    Reply::Answer {
        pieces,
        pause: tricks::pause(trick),
    }
}

fn rejected() -> ApiError {
    ApiError {
        status: StatusCode::BAD_REQUEST,
        api_status: "INVALID_ARGUMENT",
        message: "Request contains an invalid argument.".into(),
        details: Vec::new(),
    }
}

fn overloaded() -> ApiError {
    ApiError {
        status: StatusCode::SERVICE_UNAVAILABLE,
        api_status: "UNAVAILABLE",
        message: "The model is overloaded. Please try again later.".into(),
        details: Vec::new(),
    }
}

/// A daily quota used up, as the API words it: retrying cannot help, another model can.
fn out_of_quota() -> ApiError {
    ApiError {
        status: StatusCode::TOO_MANY_REQUESTS,
        api_status: "RESOURCE_EXHAUSTED",
        message: format!(
            "You exceeded your current quota for {MODEL} (the demo's own model; \
             its fallback, {FALLBACK_MODEL}, has quota left). limit: 0"
        ),
        details: vec![json!({
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [{
                "quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
                "quotaId": "GenerateRequestsPerDayPerProjectPerModel",
            }],
        })],
    }
}

fn tool_call() -> Vec<Piece> {
    let (name, args) = tricks::TOOL_CALL;
    vec![
        Piece::Text("Let me look that up. ".into()),
        Piece::Call {
            name: name.into(),
            args: serde_json::from_str(args).unwrap_or(Value::Null),
        },
    ]
}

/// `text` a word per piece.
fn words(text: &str) -> impl Iterator<Item = Piece> + '_ {
    text.split_inclusive(' ').map(|w| Piece::Text(w.into()))
}

/// The texts of the latest turn.
fn latest_texts(request: &DemoRequest) -> Vec<String> {
    let last = request.contents.last();
    let parts = last.map(parts::from_content).unwrap_or_default();
    parts
        .into_iter()
        .filter_map(|p| match p.content {
            PartContent::Text(text) => Some(text),
            _ => None,
        })
        .collect()
}

/// The text of the latest turn (where a trick's tag is looked for).
fn latest_text(request: &DemoRequest) -> String {
    latest_texts(request).join(" ")
}

/// The echo: the last turn's text (or its function results), which model answers, and how
/// many contents it was sent.
pub fn echo(request: &DemoRequest, model: &str) -> String {
    let last = request.contents.last();
    let results: Vec<String> = last
        .map(parts::from_content)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| match p.content {
            PartContent::FunctionResponse {
                name,
                response_json,
                ..
            } => Some(format!("{name} returned {response_json}")),
            _ => None,
        })
        .collect();
    let heard = if results.is_empty() {
        format!("You said: \"{}\".", latest_texts(request).join(" / "))
    } else {
        format!("Thanks: {}.", results.join("; "))
    };
    let who = if model == FALLBACK_MODEL {
        format!("I am {FALLBACK_MODEL}, the Omni demo's fallback model,")
    } else {
        "I am the Omni demo model,".to_string()
    };
    let sent = request.contents.len();
    format!(
        "{heard} {who} and I was sent {sent} message{} of context.",
        if sent == 1 { "" } else { "s" }
    )
}

/// Words in the request's texts, the demo's token count.
pub fn count_tokens(request: &Value) -> u64 {
    let contents = request
        .get("contents")
        .or_else(|| request.pointer("/generateContentRequest/contents"));
    let texts = contents
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|content| content.get("parts").and_then(Value::as_array))
        .flatten()
        .filter_map(|part| part.get("text").and_then(Value::as_str));
    texts
        .map(|text| text.split_whitespace().count() as u64)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: &str) -> DemoRequest {
        serde_json::from_str(json).unwrap()
    }

    fn answer(json: &str, model: &str) -> Reply {
        reply(
            &request(json),
            model,
            json.as_bytes(),
            &Overloads::default(),
        )
    }

    const HI: &str = r#"{"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}"#;

    #[test]
    fn it_echoes_the_prompt_and_counts_the_context() {
        assert_eq!(
            echo(&request(HI), MODEL),
            "You said: \"hi\". I am the Omni demo model, and I was sent 1 message of context."
        );
        let results = request(
            r#"{"contents": [{"role": "user", "parts": [{"text": "a"}]}, {"role": "model", "parts": [{"text": "b"}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": 1}}}]}]}"#,
        );
        assert!(echo(&results, MODEL).starts_with("Thanks: f returned {\"output\": 1}."));
        assert!(echo(&request(HI), FALLBACK_MODEL).contains("fallback model"));
    }

    #[test]
    fn the_fallback_trick_fails_the_demo_model_only() {
        let json = r#"{"contents": [{"role": "user", "parts": [{"text": "[demo:fallback]"}]}]}"#;
        match answer(json, MODEL) {
            Reply::Error(error) => assert_eq!(error.status, StatusCode::TOO_MANY_REQUESTS),
            other => panic!("{other:?}"),
        }
        assert!(matches!(answer(json, FALLBACK_MODEL), Reply::Answer { .. }));
    }

    #[test]
    fn thoughts_come_before_the_answer_and_a_tool_trick_calls_a_function() {
        let think = r#"{"contents": [{"role": "user", "parts": [{"text": "[demo:think]"}]}]}"#;
        let Reply::Answer { pieces, .. } = answer(think, MODEL) else {
            panic!("an answer")
        };
        assert!(matches!(pieces[0], Piece::Thought(_)));
        assert!(matches!(pieces.last(), Some(Piece::Text(_))));
        let tool = r#"{"contents": [{"role": "user", "parts": [{"text": "[demo:tool]"}]}]}"#;
        let Reply::Answer { pieces, .. } = answer(tool, MODEL) else {
            panic!("an answer")
        };
        assert!(matches!(pieces.last(), Some(Piece::Call { name, .. }) if name == "get_weather"));
    }

    #[test]
    fn tokens_are_counted_in_either_request_shape() {
        let plain = json!({"contents": [{"parts": [{"text": "count me please"}]}]});
        assert_eq!(count_tokens(&plain), 3);
        let wrapped =
            json!({"generateContentRequest": {"contents": [{"parts": [{"text": "a b"}]}]}});
        assert_eq!(count_tokens(&wrapped), 2);
    }
}
