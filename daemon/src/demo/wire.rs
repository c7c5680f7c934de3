//! The demo model's answers in Gemini's JSON: streamed responses (a piece each, the last
//! with the finish reason), a whole response, a blocked prompt, errors, model descriptions.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::answer::{ApiError, Piece};

/// The JSON of one part.
fn part(piece: &Piece) -> Value {
    match piece {
        Piece::Thought(text) => json!({"text": text, "thought": true}),
        Piece::Text(text) => json!({"text": text}),
        Piece::Call { name, args } => json!({"functionCall": {"name": name, "args": args}}),
    }
}

/// One `GenerateContentResponse` holding `parts`, finished when `last`; `tokens` is how
/// many the answer has so far.
fn response(parts: Vec<Value>, model: &str, last: bool, tokens: u64) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}});
    if last {
        candidate["finishReason"] = json!("STOP");
    }
    json!({
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": 8,
            "candidatesTokenCount": tokens,
            "totalTokenCount": 8 + tokens,
        },
        "modelVersion": model,
    })
}

/// The server-sent events of an answer: a piece each, the last with the finish reason.
pub fn events(pieces: &[Piece], model: &str) -> Vec<String> {
    let last = pieces.len().saturating_sub(1);
    pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            let data = response(vec![part(piece)], model, i == last, i as u64 + 1);
            format!("data: {data}\r\n\r\n")
        })
        .collect()
}

/// The whole answer as one response (`generateContent`): consecutive pieces of the same
/// kind of text joined into one part.
pub fn whole(pieces: &[Piece], model: &str) -> String {
    let mut parts: Vec<Value> = Vec::new();
    let mut previous: Option<&Piece> = None;
    for piece in pieces {
        let joined = match (previous, piece, parts.last_mut()) {
            (Some(Piece::Text(_)), Piece::Text(text), Some(last))
            | (Some(Piece::Thought(_)), Piece::Thought(text), Some(last)) => {
                let before = last["text"].as_str().unwrap_or_default().to_string();
                last["text"] = json!(before + text);
                true
            }
            _ => false,
        };
        if !joined {
            parts.push(part(piece));
        }
        previous = Some(piece);
    }
    response(parts, model, true, pieces.len() as u64).to_string()
}

/// The response to a prompt the model refuses.
pub fn blocked(model: &str) -> String {
    json!({
        "promptFeedback": {"blockReason": "OTHER"},
        "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8},
        "modelVersion": model,
    })
    .to_string()
}

/// A reply written in one API's shape: its events when streamed, its whole body, or the
/// error response it refuses with.
pub enum Written {
    /// The server-sent events of a stream.
    Stream(Vec<String>),
    /// A whole JSON body.
    Whole(String),
    /// An error response.
    Refused(Response),
}

/// A JSON response with status 200.
pub fn ok_json(body: String) -> Response {
    json_with_status(StatusCode::OK, body)
}

/// A JSON response with `status`.
pub fn json_with_status(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json; charset=UTF-8")],
        body,
    )
        .into_response()
}

/// An error response in the API's shape (`{"error": {"code", "message", "status"}}`).
pub fn error(error: ApiError) -> Response {
    let mut body = json!({"error": {
        "code": error.status.as_u16(),
        "message": error.message,
        "status": error.api_status,
    }});
    if !error.details.is_empty() {
        body["error"]["details"] = Value::Array(error.details);
    }
    (
        error.status,
        [(header::CONTENT_TYPE, "application/json; charset=UTF-8")],
        body.to_string(),
    )
        .into_response()
}

/// A simple error response.
pub fn simple_error(status: StatusCode, api_status: &'static str, message: String) -> Response {
    error(ApiError {
        status,
        api_status,
        message,
        details: Vec::new(),
    })
}

/// How the model listing describes a model the demo answers as (its window:
/// [`super::window_of`]).
pub fn model(name: &str) -> Value {
    json!({
        "name": format!("models/{name}"),
        "version": env!("CARGO_PKG_VERSION"),
        "displayName": name,
        "description": "Answered by the Omni demo model: an echo, or a tag's trick.",
        "inputTokenLimit": super::window_of(name),
        "outputTokenLimit": 65_536,
        "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_demo_model_reports_its_own_window() {
        assert_eq!(model(super::super::MODEL)["inputTokenLimit"], 32_768);
        assert_eq!(
            model(super::super::FALLBACK_MODEL)["inputTokenLimit"],
            16_384
        );
    }

    fn text(text: &str) -> Piece {
        Piece::Text(text.into())
    }

    #[test]
    fn the_answer_streams_a_piece_per_event_and_finishes_once() {
        let events = events(&[text("one "), text("two "), text("three")], "omni-demo");
        assert_eq!(events.len(), 3);
        assert!(events[0].starts_with("data: {") && events[0].ends_with("\r\n\r\n"));
        let finish = |event: &str| {
            let chunk: Value = serde_json::from_str(event.trim_start_matches("data: ").trim())
                .expect("a response");
            chunk["candidates"][0]["finishReason"].clone()
        };
        assert_eq!(finish(&events[2]), json!("STOP"));
        assert_eq!(finish(&events[0]), Value::Null);
    }

    #[test]
    fn a_whole_answer_joins_its_text_and_keeps_thoughts_apart() {
        let pieces = [
            Piece::Thought("a ".into()),
            Piece::Thought("b".into()),
            text("c "),
            text("d"),
        ];
        let whole: Value = serde_json::from_str(&whole(&pieces, "m")).expect("a response");
        let parts = &whole["candidates"][0]["content"]["parts"];
        assert_eq!(parts[0], json!({"text": "a b", "thought": true}));
        assert_eq!(parts[1], json!({"text": "c d"}));
    }
}
