//! The demo model's routes: every path the proxy forwards (`/{version}/models`,
//! `/{version}/models/{model}` and `/{version}/models/{model}:{method}`, under `v1beta`
//! and `v1`), each answered as the API would; OpenAI's under `/openai/v1` and Anthropic's
//! under `/anthropic/v1` (`openai.rs`, `anthropic.rs`); anything else gets the API's JSON
//! error.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::Response;
use axum::routing::{any, get, post};
use futures_util::stream;
use serde_json::json;

use super::answer::{self, DemoRequest, Reply};
use super::tricks::Overloads;
use super::wire::{self, Written};
use super::{FALLBACK_MODEL, MODEL};
use super::{anthropic, openai, turns};

/// API versions the demo answers under, as the proxy forwards them.
const VERSIONS: [&str; 2] = ["v1beta", "v1"];

/// The demo model's router.
pub fn router() -> Router {
    Router::new()
        .route("/{version}/models", any(models))
        .route("/{version}/models/{call}", any(call))
        .route("/openai/v1/chat/completions", post(openai_chat))
        .route("/openai/v1/responses", post(openai_responses))
        .route("/openai/v1/models", get(|| async { openai::models() }))
        .route("/anthropic/v1/messages", post(anthropic_messages))
        .route("/anthropic/v1/messages/count_tokens", post(anthropic_count))
        .route(
            "/anthropic/v1/models",
            get(|| async { anthropic::models() }),
        )
        .fallback(|uri: Uri| async move { not_found(uri.path()) })
        // Whatever the proxy lets through (a 20 MB prompt), the demo reads.
        .layer(axum::extract::DefaultBodyLimit::max(64 * 1024 * 1024))
        .with_state(Arc::new(Overloads::default()))
}

fn not_found(path: &str) -> Response {
    let message = format!("{path} is not a method the demo model knows");
    wire::simple_error(StatusCode::NOT_FOUND, "NOT_FOUND", message)
}

fn wrong_method(method: &Method, path: &str) -> Response {
    let message = format!("{path} does not take {method}");
    wire::simple_error(StatusCode::METHOD_NOT_ALLOWED, "INVALID_ARGUMENT", message)
}

/// `GET /{version}/models`: the models the demo answers as.
async fn models(method: Method, Path(version): Path<String>, uri: Uri) -> Response {
    if !VERSIONS.contains(&version.as_str()) {
        return not_found(uri.path());
    }
    if method != Method::GET {
        return wrong_method(&method, uri.path());
    }
    let listed = json!({"models": [wire::model(MODEL), wire::model(FALLBACK_MODEL)]});
    wire::ok_json(listed.to_string())
}

/// `GET /{version}/models/{model}`, and `POST` of `{model}:{method}`.
async fn call(
    State(overloads): State<Arc<Overloads>>,
    method: Method,
    Path((version, call)): Path<(String, String)>,
    uri: Uri,
    body: Bytes,
) -> Response {
    if !VERSIONS.contains(&version.as_str()) {
        return not_found(uri.path());
    }
    match (method, call.split_once(':')) {
        // The demo answers as whichever model is asked.
        (Method::GET, None) => wire::ok_json(wire::model(&call).to_string()),
        (Method::POST, Some((model, "streamGenerateContent"))) => {
            generate(&overloads, model, &body, true)
        }
        (Method::POST, Some((model, "generateContent"))) => {
            generate(&overloads, model, &body, false)
        }
        (Method::POST, Some((_, "countTokens"))) => count_tokens(&body),
        (Method::POST, Some(_)) => not_found(uri.path()),
        (method, _) => wrong_method(&method, uri.path()),
    }
}

fn invalid_json() -> Response {
    let message = "Invalid JSON payload received.".to_string();
    wire::simple_error(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT", message)
}

fn count_tokens(body: &[u8]) -> Response {
    match serde_json::from_slice(body) {
        Ok(request) => {
            let total = answer::count_tokens(&request);
            wire::ok_json(json!({"totalTokens": total}).to_string())
        }
        Err(_) => invalid_json(),
    }
}

/// A generation request, streamed or whole.
fn generate(overloads: &Overloads, model: &str, body: &[u8], streaming: bool) -> Response {
    let Ok(request) = serde_json::from_slice::<DemoRequest>(body) else {
        return invalid_json();
    };
    match answer::reply(&request, model, body, overloads) {
        Reply::Error(error) => wire::error(error),
        Reply::Blocked if streaming => sse(
            vec![format!("data: {}\r\n\r\n", wire::blocked(model))],
            Default::default(),
        ),
        Reply::Blocked => wire::ok_json(wire::blocked(model)),
        Reply::Answer { pieces, pause } if streaming => sse(wire::events(&pieces, model), pause),
        Reply::Answer { pieces, .. } => wire::ok_json(wire::whole(&pieces, model)),
    }
}

/// How an API other than Gemini's writes a reply (the model asked, whether streamed).
type Encode = fn(Reply, &str, bool) -> Written;

/// A generation request of another API: read as the demo reads Gemini's, answered the
/// same way, written in that API's shape.
fn answer_as(overloads: &Overloads, body: &[u8], encode: Encode) -> Response {
    let Some((request, value)) = turns::read(body) else {
        return invalid_json();
    };
    let model = turns::model(&value);
    let reply = answer::reply(&request, model, body, overloads);
    let pause = match &reply {
        Reply::Answer { pause, .. } => *pause,
        _ => Default::default(),
    };
    match encode(reply, model, turns::streams(&value)) {
        Written::Refused(response) => response,
        Written::Stream(events) => sse(events, pause),
        Written::Whole(whole) => wire::ok_json(whole),
    }
}

async fn openai_chat(State(overloads): State<Arc<Overloads>>, body: Bytes) -> Response {
    answer_as(&overloads, &body, openai::chat)
}

async fn openai_responses(State(overloads): State<Arc<Overloads>>, body: Bytes) -> Response {
    answer_as(&overloads, &body, openai::responses)
}

async fn anthropic_messages(State(overloads): State<Arc<Overloads>>, body: Bytes) -> Response {
    answer_as(&overloads, &body, anthropic::messages)
}

async fn anthropic_count(body: Bytes) -> Response {
    match serde_json::from_slice(&body) {
        Ok(request) => anthropic::count_tokens(&request),
        Err(_) => invalid_json(),
    }
}

/// Server-sent events, `pause` apart.
fn sse(events: Vec<String>, pause: std::time::Duration) -> Response {
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
        .unwrap_or_else(|_| {
            wire::simple_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "INTERNAL",
                "no stream".into(),
            )
        })
}
