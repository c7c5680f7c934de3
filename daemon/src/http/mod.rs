//! The HTTP/JSON edge: the same request set as the socket, in JSON, for programs in any
//! language. Served on `api.sock` beside the control socket (0600, like it) and, when
//! `--http-listen` says so, on a loopback TCP port where every request needs the bearer
//! token. Routes only translate (`routes.rs`); the request set does the work.

mod auth;
mod input;
pub mod openapi;
mod respond;
pub mod routes;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Query, RawPathParams, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::Response;
use axum::routing::{MethodFilter, MethodRouter};
use omni_proto::{ErrorKind, ErrorReply, MAX_FRAME_LEN};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

pub use auth::token;
use input::{Input, invalid, session_ref};
use respond::{answer, error_response};
use routes::{ROUTES, Route};

use crate::api::Daemon;

/// Where the API is served.
pub struct Listeners {
    /// `api.sock`.
    pub unix: tokio::net::UnixListener,
    /// The loopback TCP listener and the token its clients must present.
    pub tcp: Option<(tokio::net::TcpListener, String)>,
}

/// Serves the API until `shutdown`; each listener runs in a task on the daemon's tracker.
pub fn serve(listeners: Listeners, daemon: Arc<Daemon>, shutdown: CancellationToken) {
    let tracker = daemon.services.tracker.clone();
    let router = router(daemon);
    let unix = axum::serve(listeners.unix, router.clone())
        .with_graceful_shutdown(shutdown.clone().cancelled_owned());
    tracker.spawn(async move {
        if let Err(error) = unix.await {
            tracing::error!(%error, "the HTTP API on its socket stopped");
        }
    });
    if let Some((tcp, token)) = listeners.tcp {
        let guarded = auth::require_token(router, token);
        let served = axum::serve(tcp, guarded).with_graceful_shutdown(shutdown.cancelled_owned());
        tracker.spawn(async move {
            if let Err(error) = served.await {
                tracing::error!(%error, "the HTTP API on TCP stopped");
            }
        });
    }
}

/// The API's router: one handler per entry of [`ROUTES`], the OpenAPI document, JSON
/// errors for everything else.
pub fn router(daemon: Arc<Daemon>) -> Router {
    let mut paths: Vec<(&'static str, MethodRouter<Arc<Daemon>>)> = Vec::new();
    for route in ROUTES {
        let filter = match route.method {
            "GET" => MethodFilter::GET,
            "PUT" => MethodFilter::PUT,
            _ => MethodFilter::POST,
        };
        let handler = move |state, params, query, headers, body| {
            handle(route, state, params, query, headers, body)
        };
        match paths.iter_mut().find(|(path, _)| *path == route.path) {
            Some((_, methods)) => *methods = std::mem::take(methods).on(filter, handler),
            None => paths.push((route.path, MethodRouter::new().on(filter, handler))),
        }
    }
    let document = axum::routing::get(|| async { respond::document(openapi::document()) });
    paths
        .into_iter()
        .fold(Router::new(), |router, (path, methods)| {
            router.route(path, methods)
        })
        .route(openapi::OPENAPI_PATH, document)
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .layer(DefaultBodyLimit::max(MAX_FRAME_LEN))
        .with_state(daemon)
}

async fn no_route(method: Method, uri: Uri) -> Response {
    error_response(&ErrorReply::new(
        ErrorKind::NotFound,
        format!(
            "no route {method} {}; the routes are in GET /v1/openapi.json",
            uri.path()
        ),
    ))
}

async fn wrong_method(method: Method, uri: Uri) -> Response {
    let mut response = error_response(&ErrorReply::new(
        ErrorKind::InvalidRequest,
        format!(
            "{} does not take {method}; see GET /v1/openapi.json",
            uri.path()
        ),
    ));
    *response.status_mut() = axum::http::StatusCode::METHOD_NOT_ALLOWED;
    response
}

/// The body as JSON: nothing is `null`; anything else must be a JSON object. A refusal
/// carries its status (400, or 413 for a body over the limit).
fn body_json(body: Result<Bytes, BytesRejection>) -> Result<Value, (StatusCode, ErrorReply)> {
    let bytes = body.map_err(|rejection| {
        let why =
            format!("the body could not be read: {rejection} (the limit is {MAX_FRAME_LEN} bytes)");
        (rejection.status(), invalid(why))
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    let bad = |why: String| (StatusCode::BAD_REQUEST, invalid(why));
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err(bad("the body must be a JSON object".into())),
        Err(error) => Err(bad(format!("the body is not JSON: {error}"))),
    }
}

/// An error answered with a status of its own choosing.
fn refuse(status: StatusCode, error: &ErrorReply) -> Response {
    let mut response = error_response(error);
    *response.status_mut() = status;
    response
}

/// Whether the client asked for the final result as JSON instead of an event stream.
fn wants_json(headers: &HeaderMap) -> bool {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    accept.contains("application/json") && !accept.contains("text/event-stream")
}

async fn handle(
    route: &'static Route,
    State(daemon): State<Arc<Daemon>>,
    params: RawPathParams,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let query = match query {
        Ok(Query(query)) => query,
        Err(rejection) => return error_response(&invalid(format!("bad query: {rejection}"))),
    };
    let body = match body_json(body) {
        Ok(body) => body,
        Err((status, error)) => return refuse(status, &error),
    };
    let mut input = Input {
        session: None,
        error_id: None,
        query,
        body,
    };
    for (name, value) in &params {
        match name {
            "id" => input.session = Some(session_ref(value)),
            _ => input.error_id = Some(value.to_string()),
        }
    }
    match (route.build)(input) {
        Ok(request) => answer(&daemon, request, route.answer, wants_json(&headers)).await,
        Err(error) => error_response(&error),
    }
}
