//! The demo model's routes: every path the proxy forwards (`/{version}/models`,
//! `/{version}/models/{model}` and `/{version}/models/{model}:{method}`, under `v1beta`
//! and `v1`), each answered as the API would; anything else gets the API's JSON error.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::Response;
use axum::routing::any;
use futures_util::stream;
use serde_json::json;

use super::answer::{self, DemoRequest, Reply};
use super::tricks::Overloads;
use super::wire;
use super::{FALLBACK_MODEL, MODEL};

/// API versions the demo answers under, as the proxy forwards them.
const VERSIONS: [&str; 2] = ["v1beta", "v1"];

/// The demo model's router.
pub fn router() -> Router {
    Router::new()
        .route("/{version}/models", any(models))
        .route("/{version}/models/{call}", any(call))
        .fallback(|uri: Uri| async move { not_found(uri.path()) })
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
