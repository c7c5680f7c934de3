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

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::api::{Api, Event, Read, ReadEvents, error_response, unread_body};
use super::pass::{self, Call};
use super::{BODY_LIMIT, Proxy, relay, upstream};
use crate::listeners;
use crate::provider::openai::Assembler;
use crate::provider::{ApiKey, Provider, ProviderConfig, ProviderError, Redactor};

/// One of the OpenAI APIs, as the proxy serves it: Chat Completions or Responses.
pub struct OpenAi {
    name: &'static str,
    /// The path under the provider's base URL.
    path: &'static str,
    reader: fn() -> Box<dyn ReadEvents>,
    turns: fn(&Value) -> Vec<crate::proxy::record::Turn>,
    /// Whether a stream's error event is the Responses API's (`event: error`).
    named_errors: bool,
}

/// Chat Completions.
pub static CHAT: OpenAi = OpenAi {
    name: "openai",
    path: "/chat/completions",
    reader: || Box::new(Chunks::default()),
    turns: messages::turns,
    named_errors: false,
};

/// The Responses API.
pub static RESPONSES: OpenAi = OpenAi {
    name: "openai-responses",
    path: "/responses",
    reader: || Box::new(responses::ResponseEvents),
    turns: input::turns,
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

/// Where a client of this API passes its key.
const WHERE_TO: &str = "the Authorization header (Bearer)";

/// `POST /v1/chat/completions`.
pub async fn chat(proxy: State<Arc<Proxy>>, headers: HeaderMap, body: Body) -> Response {
    generate(&CHAT, proxy.0, headers, body).await
}

/// `POST /v1/responses`.
pub async fn responses(proxy: State<Arc<Proxy>>, headers: HeaderMap, body: Body) -> Response {
    generate(&RESPONSES, proxy.0, headers, body).await
}

/// A generation request of `api`: streamed ones are recorded.
async fn generate(
    api: &'static OpenAi,
    proxy: Arc<Proxy>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let within = proxy.services.live.get().config.client_timeout;
    let body = match listeners::read_body(body, BODY_LIMIT, within).await {
        Ok(body) => body,
        Err(error) => return unread_body(api, &error),
    };
    let Ok(mut request) = serde_json::from_slice::<Value>(&body) else {
        return error_response(
            api,
            StatusCode::BAD_REQUEST,
            "We could not parse the JSON body of your request.",
        );
    };
    let live = proxy.services.live.get();
    let model = request["model"].as_str().unwrap_or_default().to_string();
    let Some((provider, upstream_model)) = upstream_of(&live.config.provider, &model) else {
        return none_configured(api);
    };
    let key = match admitted(&proxy, &headers, provider) {
        Ok(key) => key,
        Err(refused) => return refused.response(api),
    };
    let body = if upstream_model == model {
        body
    } else {
        request["model"] = Value::String(upstream_model.to_string());
        Bytes::from(request.to_string())
    };
    let streaming = request["stream"].as_bool().unwrap_or(false);
    let turns = if streaming {
        (api.turns)(&request)
    } else {
        Vec::new()
    };
    let continues = if streaming {
        proxy.place(&turns).await
    } else {
        None
    };
    let call = Call {
        api,
        url: format!("{}{}", provider.base_url.trim_end_matches('/'), api.path),
        headers: bearer(key.as_ref()),
        redactor: Redactor::new(key.as_ref().map(|k| k.expose())),
        live,
        method: reqwest::Method::POST,
        body,
        stream: streaming.then_some(relay::Framing::Sse),
        turns,
        continues,
        origin: pass::origin(api, &headers),
    };
    pass::forward(&proxy, call).await
}

/// `GET /v1/models`: the upstream provider's list, as it gives it.
pub async fn models(proxy: Arc<Proxy>, headers: &HeaderMap) -> Response {
    let live = proxy.services.live.get();
    let Some((provider, _)) = upstream_of(&live.config.provider, "") else {
        return none_configured(&CHAT);
    };
    let key = match admitted(&proxy, headers, provider) {
        Ok(key) => key,
        Err(refused) => return refused.response(&CHAT),
    };
    let call = Call {
        api: &CHAT,
        url: format!("{}/models", provider.base_url.trim_end_matches('/')),
        headers: bearer(key.as_ref()),
        redactor: Redactor::new(key.as_ref().map(|k| k.expose())),
        live,
        method: reqwest::Method::GET,
        body: Bytes::new(),
        stream: None,
        turns: Vec::new(),
        continues: None,
        origin: pass::origin(&CHAT, headers),
    };
    pass::forward(&proxy, call).await
}

/// The key the request carries, admitted for `provider`, or why not.
fn admitted(
    proxy: &Proxy,
    headers: &HeaderMap,
    provider: &Provider,
) -> Result<Option<ApiKey>, super::keys::Refused> {
    let accept_any = proxy
        .services
        .live
        .get()
        .config
        .settings
        .proxy_accept_any_key;
    let carried = upstream::bearer_of(headers);
    super::keys::admit(carried, provider.api_key.as_ref(), accept_any, WHERE_TO)
}

/// The admitted key as OpenAI takes it upstream.
fn bearer(key: Option<&ApiKey>) -> reqwest::header::HeaderMap {
    upstream::key_headers(reqwest::header::AUTHORIZATION, key, true)
}

/// The provider a model goes to, and its name there.
fn upstream_of<'a>(
    providers: &'a ProviderConfig,
    model: &'a str,
) -> Option<(&'a Provider, &'a str)> {
    upstream::provider_for(providers, "openai", model)
}

/// The answer when no OpenAI-compatible provider is configured.
fn none_configured(api: &OpenAi) -> Response {
    error_response(
        api,
        StatusCode::NOT_IMPLEMENTED,
        "omnid's OpenAI-compatible endpoint forwards to an OpenAI-compatible provider, and \
         none is configured (set --provider openai, or add [providers.NAME] with kind = \
         \"openai\")",
    )
}
