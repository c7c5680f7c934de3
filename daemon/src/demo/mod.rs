//! `omnid --demo`: a small, deterministic model that answers over real HTTP on 127.0.0.1 in
//! Gemini's streaming wire format, so the quick start runs a real session (the store, the
//! provider, the stream parser, the retry loop) with no key and no network. It echoes the
//! prompt (or the function results) and says how much context it was sent, a word per
//! chunk; a tag in the prompt asks for a fault or markdown instead (`tricks.rs`).

mod tricks;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::stream;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::{RawValue, to_raw_value};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Config, ModelList};
use crate::listeners;
use crate::model::PartContent;
use crate::provider::wire::{Candidate, CandidateContent, Chunk, PartOut, UsageMetadata};
use crate::provider::{Kind, Provider, parts};

/// The model name the demo answers as.
pub const MODEL: &str = "omni-demo";

/// The demo model, listening on 127.0.0.1.
pub struct DemoModel {
    addr: SocketAddr,
}

impl DemoModel {
    /// Starts answering on an ephemeral port of 127.0.0.1, until `shutdown`.
    pub async fn start(
        tracker: &TaskTracker,
        shutdown: CancellationToken,
    ) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let app = Router::new()
            .route("/v1beta/models/{call}", post(answer))
            .with_state(Arc::new(tricks::Overloads::default()));
        let rules = listeners::Rules {
            name: "the demo model",
            head_timeout: std::sync::Arc::new(|| std::time::Duration::from_secs(10)),
            cap: None,
        };
        listeners::spawn(listener, app, rules, tracker, shutdown);
        Ok(Self { addr })
    }

    /// Its base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Points a configuration at the demo model, whatever the file says: its URL, its model
/// name, and no key (a real key has no business going to it); no other provider and no
/// fallback.
pub fn point_at(config: &mut Config, url: &str) {
    config.provider.default = Provider {
        name: Kind::Gemini.as_str().into(),
        kind: Kind::Gemini,
        base_url: url.to_string(),
        api_key: None,
    };
    config.provider.named.clear();
    config.provider.model = MODEL.into();
    config.provider.fallback.clear();
    config.provider_entries.clear();
    // What --print-config and diagnostics show says the same.
    config.settings.provider = Kind::Gemini.as_str().into();
    config.settings.base_url = Some(url.to_string());
    config.settings.model = MODEL.into();
    config.settings.fallback = ModelList::default();
    config.settings.api_key = None;
}

/// The part of a request the demo reads.
#[derive(Deserialize)]
struct DemoRequest {
    contents: Vec<CandidateContent>,
}

fn error(status: StatusCode, api_status: &str, message: &str) -> Response {
    let body =
        json!({"error": {"code": status.as_u16(), "message": message, "status": api_status}});
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

async fn answer(
    State(overloads): State<Arc<tricks::Overloads>>,
    Path(call): Path<String>,
    body: Bytes,
) -> Response {
    let Some((model, method @ ("streamGenerateContent" | "generateContent"))) =
        call.split_once(':')
    else {
        let message = format!("models/{call} is not a method the demo model knows");
        return error(StatusCode::NOT_FOUND, "NOT_FOUND", &message);
    };
    let Ok(request) = serde_json::from_slice::<DemoRequest>(&body) else {
        return error(
            StatusCode::BAD_REQUEST,
            "INVALID_ARGUMENT",
            "Invalid JSON payload received.",
        );
    };
    let trick = tricks::asked(&latest_text(&request));
    let text = match trick {
        Some(tricks::Trick::Rejected) => {
            return error(
                StatusCode::BAD_REQUEST,
                "INVALID_ARGUMENT",
                "Request contains an invalid argument.",
            );
        }
        Some(tricks::Trick::Overloaded) if overloads.fails_first(&body) => {
            return error(
                StatusCode::SERVICE_UNAVAILABLE,
                "UNAVAILABLE",
                "The model is overloaded. Please try again later.",
            );
        }
        Some(tricks::Trick::Markdown) => tricks::MARKDOWN.to_string(),
        _ => reply_text(&request),
    };
    if method == "generateContent" {
        let words = text.split_inclusive(' ').count() as u64;
        let whole = response_json(&text, model, true, words);
        return ([(header::CONTENT_TYPE, "application/json")], whole).into_response();
    }
    let pause = tricks::word_pause(trick);
    let events = chunks(&text, model);
    let paced = stream::unfold(
        (events.into_iter(), true),
        move |(mut events, first)| async move {
            let event = events.next()?;
            if !first {
                tokio::time::sleep(pause).await;
            }
            Some((Ok::<_, Infallible>(Bytes::from(event)), (events, false)))
        },
    );
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(paced))
        .unwrap_or_else(|_| error(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL", "no stream"))
}

/// The text of the latest turn (where a trick's tag is looked for).
fn latest_text(request: &DemoRequest) -> String {
    request
        .contents
        .last()
        .map(parts::from_content)
        .unwrap_or_default()
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the demo says to a request: the last turn's text (or its function results) echoed,
/// and how many contents it was sent.
fn reply_text(request: &DemoRequest) -> String {
    let last = request.contents.last();
    let parts = last.map(parts::from_content).unwrap_or_default();
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let results: Vec<String> = parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::FunctionResponse {
                name,
                response_json,
                ..
            } => Some(format!("{name} returned {response_json}")),
            _ => None,
        })
        .collect();
    let heard = if results.is_empty() {
        format!("You said: \"{}\".", texts.join(" / "))
    } else {
        format!("Thanks: {}.", results.join("; "))
    };
    let sent = request.contents.len();
    format!(
        "{heard} I am the Omni demo model, and I was sent {sent} message{} of context.",
        if sent == 1 { "" } else { "s" }
    )
}

/// One response of the answer: `text`, with the finish reason when `last`; `tokens` is
/// how many tokens the answer has so far.
fn response_json(text: &str, model: &str, last: bool, tokens: u64) -> String {
    let part: Box<RawValue> = to_raw_value(&PartOut::Text {
        text,
        thought: None,
        thought_signature: None,
    })
    .unwrap_or_else(|_| RawValue::NULL.to_owned());
    let chunk = Chunk {
        candidates: vec![Candidate {
            content: Some(CandidateContent {
                role: "model".into(),
                parts: vec![part],
            }),
            finish_reason: last.then(|| "STOP".to_string()),
        }],
        usage_metadata: Some(UsageMetadata {
            prompt_token_count: 8,
            candidates_token_count: tokens,
            thoughts_token_count: 0,
            total_token_count: 8 + tokens,
        }),
        model_version: Some(model.to_string()),
        ..Chunk::default()
    };
    serde_json::to_string(&chunk).unwrap_or_default()
}

/// The SSE events of an answer: a word each, the last with the finish reason.
fn chunks(text: &str, model: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    let last = words.len().saturating_sub(1);
    words
        .iter()
        .enumerate()
        .map(|(i, word)| {
            let data = response_json(word, model, i == last, i as u64 + 1);
            format!("data: {data}\r\n\r\n")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: &str) -> DemoRequest {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn it_echoes_the_prompt_and_counts_the_context() {
        let one = request(r#"{"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}"#);
        assert_eq!(
            reply_text(&one),
            "You said: \"hi\". I am the Omni demo model, and I was sent 1 message of context."
        );
        let results = request(
            r#"{"contents": [{"role": "user", "parts": [{"text": "a"}]}, {"role": "model", "parts": [{"text": "b"}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": 1}}}]}]}"#,
        );
        assert!(reply_text(&results).starts_with("Thanks: f returned {\"output\": 1}."));
    }

    #[test]
    fn the_answer_streams_a_word_per_chunk_and_finishes_once() {
        let events = chunks("one two three", "omni-demo");
        assert_eq!(events.len(), 3);
        assert!(events[0].starts_with("data: {") && events[0].ends_with("\r\n\r\n"));
        let finish = |event: &str| {
            let chunk: Chunk =
                serde_json::from_str(event.trim_start_matches("data: ").trim()).unwrap();
            chunk.candidates[0].finish_reason.clone()
        };
        assert_eq!(finish(&events[2]).as_deref(), Some("STOP"));
        assert_eq!(finish(&events[0]), None);
    }
}
