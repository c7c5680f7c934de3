//! The HTTP/JSON edge: the same request set as the socket, in JSON, for programs in any
//! language. Served on `api.sock` beside the control socket (0600, like it) and, when
//! `--http-listen` says so, on a loopback TCP port where every request needs the bearer
//! token. Routes only translate (`routes.rs`); the request set does the work.

mod auth;
mod bodies;
mod body;
mod history_routes;
mod input;
pub mod openapi;
mod queries;
mod respond;
mod route;
pub mod routes;
mod session_routes;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, RawPathParams, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::Response;
use axum::routing::{MethodFilter, MethodRouter};
use omni_proto::{ErrorKind, ErrorReply, json};
use tokio_util::sync::CancellationToken;

pub use auth::token;
use input::{Input, invalid, session_ref};
use respond::{answer, error_response};
use route::Route;

use crate::api::Daemon;
use crate::listeners::{self, Busy, Rules};

/// Where the API is served.
pub struct Listeners {
    /// `api.sock`.
    pub unix: tokio::net::UnixListener,
    /// The loopback TCP listener and the token its clients must present.
    pub tcp: Option<(tokio::net::TcpListener, String)>,
}

impl Listeners {
    /// The TCP listener's bound address (what `status` shows), if there is one.
    pub fn tcp_address(&self) -> Option<std::net::SocketAddr> {
        self.tcp.as_ref().and_then(|(tcp, _)| tcp.local_addr().ok())
    }
}

/// Serves the API until `shutdown`: `api.sock` without a cap (only its owner can connect),
/// TCP with the token and at most `tcp_cap` connections.
pub fn serve(
    listeners: Listeners,
    daemon: Arc<Daemon>,
    tcp_cap: usize,
    shutdown: CancellationToken,
) {
    let tracker = daemon.services.tracker.clone();
    let head_timeout = {
        let services = daemon.services.clone();
        Arc::new(move || services.live.get().config.client_timeout)
    };
    let router = router(daemon);
    let unix = Rules {
        name: "the HTTP API on its socket",
        head_timeout: head_timeout.clone(),
        cap: None,
    };
    listeners::spawn(
        listeners.unix,
        router.clone(),
        unix,
        &tracker,
        shutdown.clone(),
    );
    if let Some((tcp, token)) = listeners.tcp {
        let busy = json::error(&ErrorReply::new(
            ErrorKind::Busy,
            format!("omnid serves {tcp_cap} HTTP connections at once; try again shortly"),
        ));
        let rules = Rules {
            name: "the HTTP API on TCP",
            head_timeout,
            cap: Some((tcp_cap, Busy::new("application/json", &busy.to_string()))),
        };
        let guarded = auth::require_token(router, token);
        listeners::spawn(tcp, guarded, rules, &tracker, shutdown);
    }
}

/// The API's router: one handler per entry of [`routes::all`], the OpenAPI document, JSON
/// errors for everything else.
pub fn router(daemon: Arc<Daemon>) -> Router {
    let mut paths: Vec<(&'static str, MethodRouter<Arc<Daemon>>)> = Vec::new();
    for route in routes::all() {
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
    body: Body,
) -> Response {
    let query = match query {
        Ok(Query(query)) => query,
        Err(rejection) => return error_response(&invalid(format!("bad query: {rejection}"))),
    };
    let within = daemon.services.live.get().config.client_timeout;
    let body = match body::json(route, body, within).await {
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
    match route.takes.build(&input) {
        Ok(request) => answer(&daemon, request, route.answer, wants_json(&headers)).await,
        Err(error) => error_response(&error),
    }
}
