//! The OpenAI API as its SDKs and agents speak it (`OPENAI_BASE_URL` set to the proxy's
//! `/v1`): `POST /v1/chat/completions` streamed (`stream: true`, with
//! `stream_options.include_usage` passed on) and not, `POST /v1/responses` (the Responses
//! API as Codex CLI uses it, `responses.rs` reads its events) streamed and not, and
//! `GET /v1/models`. Keys come in `Authorization: Bearer`. Upstream is the OpenAI-compatible provider the model names
//! (`NAME/MODEL`, the prefix removed before it goes on), else the first one configured,
//! the default provider first.

mod input;
mod messages;
mod responses;
mod whole;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::Proxy;
use super::api::{Api, Event, Read, ReadEvents};
use super::record::Turn;
use super::upstream::{self, Route};
use crate::provider::ProviderError;
use crate::provider::openai::Assembler;

/// One of the OpenAI APIs, as the proxy serves it: Chat Completions or Responses.
pub struct OpenAi {
    name: &'static str,
    /// The path under the provider's base URL.
    path: &'static str,
    reader: fn() -> Box<dyn ReadEvents>,
    /// A request body's conversation, as turns.
    turns: fn(&Value) -> Vec<Turn>,
    /// A whole answer as the events its stream would have carried.
    whole: fn(Value) -> Vec<Event>,
    /// Whether a stream's error event is the Responses API's (`event: error`).
    named_errors: bool,
}

/// Chat Completions.
pub static CHAT: OpenAi = OpenAi {
    name: "openai",
    path: "/chat/completions",
    reader: || Box::new(Chunks::default()),
    turns: messages::turns,
    whole: whole::chat,
    named_errors: false,
};

/// The Responses API.
pub static RESPONSES: OpenAi = OpenAi {
    name: "openai-responses",
    path: "/responses",
    reader: || Box::new(responses::ResponseEvents),
    turns: input::turns,
    whole: whole::response,
    named_errors: true,
};

impl Api for OpenAi {
    fn name(&self) -> &'static str {
        self.name
    }

    fn error_body(&self, code: StatusCode, message: &str) -> String {
        let (kind, short) = match code.as_u16() {
            401 => ("invalid_request_error", Some("invalid_api_key")),
            429 => ("rate_limit_exceeded", None),
            400..=499 => ("invalid_request_error", None),
            _ => ("server_error", None),
        };
        json!({"error": {"message": message, "type": kind, "param": null, "code": short}})
            .to_string()
    }

    fn reader(&self) -> Box<dyn ReadEvents> {
        (self.reader)()
    }

    fn whole_events(&self, answer: Value) -> Vec<Event> {
        (self.whole)(answer)
    }

    fn error_event(&self, body: &str) -> Event {
        if !self.named_errors {
            return Event::data(body);
        }
        // The Responses API ends a stream with `event: error` and the error's fields.
        let error = serde_json::from_str::<Value>(body).unwrap_or_default()["error"].clone();
        let data = json!({
            "type": "error",
            "code": error["code"],
            "message": error["message"].as_str().unwrap_or(body),
            "param": error["param"],
        });
        Event {
            name: Some("error".into()),
            data: data.to_string(),
        }
    }
}

/// A chat-completions stream: tool calls arrive in fragments, assembled as a session's
/// provider assembles them; `[DONE]` ends it and means nothing else.
#[derive(Default)]
struct Chunks(Assembler);

impl ReadEvents for Chunks {
    fn read(&mut self, event: &Event) -> Result<Option<Read>, ProviderError> {
        if event.data.trim() == "[DONE]" {
            return Ok(None);
        }
        let update = self.0.absorb(&event.data)?;
        // A fragment of a tool call carries no part until the call is whole: the
        // fragment itself is what a retried stream must repeat.
        let mark = serde_json::from_str::<Value>(&event.data)
            .ok()
            .and_then(|chunk| {
                let calls = &chunk["choices"][0]["delta"]["tool_calls"];
                (!calls.is_null()).then(|| calls.to_string())
            })
            .unwrap_or_default();
        Ok(Some(Read { update, mark }))
    }
}

/// Chat Completions' requests, as they reach a provider of kind `openai`.
static CHAT_ROUTE: Route = route(&CHAT);

/// The Responses API's requests, likewise.
static RESPONSES_ROUTE: Route = route(&RESPONSES);

/// How `api`'s requests reach the provider: keys in `Authorization: Bearer`, both ways.
const fn route(api: &'static OpenAi) -> Route {
    Route {
        api,
        kind: "openai",
        where_to: "the Authorization header (Bearer)",
        carried: upstream::bearer_of,
        headers: |_, key| upstream::key_headers(reqwest::header::AUTHORIZATION, key, true),
    }
}

/// `POST /v1/chat/completions`.
pub async fn chat(proxy: State<Arc<Proxy>>, headers: HeaderMap, body: Body) -> Response {
    upstream::post(
        proxy.0,
        &CHAT_ROUTE,
        CHAT.path,
        headers,
        body,
        Some(CHAT.turns),
    )
    .await
}

/// `POST /v1/responses`.
pub async fn responses(proxy: State<Arc<Proxy>>, headers: HeaderMap, body: Body) -> Response {
    let turns: fn(&Value) -> Vec<Turn> = input::turns;
    upstream::post(
        proxy.0,
        &RESPONSES_ROUTE,
        RESPONSES.path,
        headers,
        body,
        Some(turns),
    )
    .await
}

/// `GET /v1/models`: the upstream provider's list, as it gives it.
pub async fn models(proxy: Arc<Proxy>, headers: &HeaderMap) -> Response {
    upstream::get(proxy, &CHAT_ROUTE, "/models", headers).await
}
