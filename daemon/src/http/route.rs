//! What one route of the HTTP API is: its method, path, documentation, how it answers and
//! the request it becomes. The tables (`routes.rs`, `session_routes.rs`,
//! `history_routes.rs`) are lists of these.

use omni_proto::{ErrorReply, Request};
use serde_json::Value;

use super::input::Input;

/// How a route answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The reply as one JSON object, with this status on success.
    Json(u16),
    /// Server-sent events, then one final `result` or `error` event; with `Accept:
    /// application/json`, the final result alone as JSON.
    Streams,
    /// Server-sent events until the client disconnects (attach).
    Follows,
    /// The bundle's bytes as a file download.
    Download,
}

/// One route of the API.
pub struct Route {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The path, with `{id}` or `{eid}` where they go.
    pub path: &'static str,
    /// What it does, for the OpenAPI document.
    pub summary: &'static str,
    /// Query parameters: name and meaning.
    pub query: &'static [(&'static str, &'static str)],
    /// The JSON Schema of the body, if it takes one.
    pub body: Option<fn() -> Value>,
    /// The name of the JSON reply's schema (a component of the document).
    pub reply: &'static str,
    /// How it answers.
    pub answer: Answer,
    /// The request it becomes.
    pub build: fn(Input) -> Result<Request, ErrorReply>,
}
