//! The HTTP API's routes, declared once: the router, the request each route becomes and
//! the OpenAPI document are all built from [`all`]. A route only translates: it turns
//! the path, query and JSON body into an [`omni_proto::Request`] that the socket protocol
//! carries too, and the one request set handles it.

use omni_proto::{ErrorReply, MoveOp, Request};
use serde_json::{Value, json};

use super::input::{
    Input, checkout, export, head_move, import, new_session, object, recover, search, set_model,
    tool_result, usage,
};

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

/// Every route of the API, in the order the OpenAPI document lists them.
pub fn all() -> impl Iterator<Item = &'static Route> {
    ROUTES.iter().chain(super::session_routes::SESSION_ROUTES)
}

/// The routes of the conversation, diagnostics and the daemon.
pub const ROUTES: &[Route] = &[
    Route {
        method: "GET",
        path: "/v1/status",
        summary: "The daemon's health and configuration (what `omnictl --json status` prints)",
        query: &[],
        body: None,
        reply: "DaemonStatus",
        answer: Answer::Json(200),
        build: |_| Ok(Request::Status),
    },
    Route {
        method: "POST",
        path: "/v1/sessions",
        summary: "Create a session (it becomes the current one), optionally with tools, its own model and fallback chain, and a system instruction",
        query: &[],
        body: Some(|| {
            object(
                json!({
                    "tools": {"type": "array", "items": {"type": "object"}, "description": "Function declarations the model may call"},
                    "model": {"type": "string", "description": "The model it asks: MODEL (of the default provider) or PROVIDER/MODEL"},
                    "fallback": {"type": "array", "items": {"type": "string"}, "description": "Models asked in turn when its own cannot answer"},
                    "system": {"type": "string", "description": "A system instruction sent with every request"}
                }),
                &[],
            )
        }),
        reply: "SessionCreated",
        answer: Answer::Json(201),
        build: new_session,
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}",
        summary: "One session's summary and state",
        query: &[],
        body: None,
        reply: "SessionSummary",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Request::Session {
                session: i.session(),
            })
        },
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/history",
        summary: "The transcript (what `omnictl --json history` prints)",
        query: &[(
            "active",
            "true: only the nodes on the path to the head (the model's context)",
        )],
        body: None,
        reply: "HistoryView",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Request::History {
                session: i.session(),
                active_only: i.flag("active")?,
            })
        },
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/branches",
        summary: "Every leaf of the session's tree",
        query: &[],
        body: None,
        reply: "BranchList",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Request::Branches {
                session: i.session(),
            })
        },
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/send",
        summary: "Send a prompt; the answer streams as server-sent events (or, with `Accept: application/json`, arrives whole)",
        query: &[],
        body: Some(|| {
            object(
                json!({
                    "prompt": {"type": "string"},
                    "replace": {
                        "type": "boolean",
                        "default": false,
                        "description": "What to do with a prompt a failed or cancelled send left pending: false (the default) keeps it and sends both (the reply's `prompts` and a `prompts_merged` event name them); true sends this prompt in its place (the old one stays in the tree, off the path)"
                    }
                }),
                &["prompt"],
            )
        }),
        reply: "Answer",
        answer: Answer::Streams,
        build: |i| {
            Ok(Request::Send {
                session: i.session(),
                prompt: i.prompt()?,
                replace: i.optional_bool("replace")?.unwrap_or(false),
            })
        },
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/retry",
        summary: "Answer the prompt a failed send left pending again, as it is; streams like send",
        query: &[],
        body: None,
        reply: "Answer",
        answer: Answer::Streams,
        build: |i| {
            Ok(Request::Retry {
                session: i.session(),
            })
        },
    },
    Route {
        method: "PUT",
        path: "/v1/sessions/{id}/model",
        summary: "Switch the model the session asks, from its next send on",
        query: &[],
        body: Some(|| {
            object(
                json!({"model": {"type": "string", "description": "MODEL or PROVIDER/MODEL"}}),
                &["model"],
            )
        }),
        reply: "SessionSummary",
        answer: Answer::Json(200),
        build: set_model,
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/cancel",
        summary: "Cancel the answer in flight; the partial answer is kept out of the context",
        query: &[],
        body: None,
        reply: "Cancelled",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Request::Cancel {
                session: i.session(),
            })
        },
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/events",
        summary: "Follow the session: server-sent events of everything it does, until you disconnect",
        query: &[],
        body: None,
        reply: "SessionSummary",
        answer: Answer::Follows,
        build: |i| {
            Ok(Request::Attach {
                session: i.session(),
            })
        },
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/undo",
        summary: "Take the last answer out of the context (redo brings it back)",
        query: &[],
        body: None,
        reply: "MoveOutcome",
        answer: Answer::Json(200),
        build: |i| head_move(i, MoveOp::Undo),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/back",
        summary: "Take the last whole round out of the context (redo brings it back)",
        query: &[],
        body: None,
        reply: "MoveOutcome",
        answer: Answer::Json(200),
        build: |i| head_move(i, MoveOp::Back),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/redo",
        summary: "Take back the last undo or back",
        query: &[],
        body: None,
        reply: "MoveOutcome",
        answer: Answer::Json(200),
        build: |i| head_move(i, MoveOp::Redo),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/checkout",
        summary: "Continue from any node (a new prompt there forks a branch)",
        query: &[],
        body: Some(|| {
            object(
                json!({"node": {"type": "integer", "minimum": 0}}),
                &["node"],
            )
        }),
        reply: "MoveOutcome",
        answer: Answer::Json(200),
        build: checkout,
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/tool-results",
        summary: "Submit one function call's result; with the last one the continuation streams",
        query: &[],
        body: Some(|| {
            object(
                json!({"name": {"type": "string"}, "call_id": {"type": "string"}, "response": {"type": "object"}}),
                &["name", "response"],
            )
        }),
        reply: "ToolOutcome",
        answer: Answer::Streams,
        build: tool_result,
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/recover",
        summary: "Choose a way out of needs-recovery; `retry` streams the new answer",
        query: &[],
        body: Some(|| {
            object(
                json!({"action": {"enum": ["deep", "clear", "ignore", "retry"]}}),
                &["action"],
            )
        }),
        reply: "RecoverOutcome",
        answer: Answer::Streams,
        build: recover,
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/resume",
        summary: "Lift a suspension after repeated failed sends",
        query: &[],
        body: None,
        reply: "Resumed",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Request::Resume {
                session: i.session(),
            })
        },
    },
    Route {
        method: "GET",
        path: "/v1/usage",
        summary: "Stored answers' tokens (input, cached, output, thinking) and cost, per session, model or day",
        query: &[
            ("by", "session (the default), model or day"),
            (
                "since",
                "only answers from then on: 2026-11-01, 2026-11-01T14:30, today, yesterday, 7d, 24h, or ms since the epoch",
            ),
            (
                "session",
                "only this session's (an id, a prefix or current)",
            ),
        ],
        body: None,
        reply: "UsageReport",
        answer: Answer::Json(200),
        build: usage,
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/export",
        summary: "The session as a file download: Markdown (the path to the head; `all=true` adds reverted turns struck through), JSON (the whole tree, schema `docs/export.schema.json`) or JSON lines (the session, then one node per line)",
        query: &[
            ("format", "md (the default), json or jsonl"),
            (
                "all",
                "true: Markdown shows reverted turns too, struck through",
            ),
        ],
        body: None,
        reply: "",
        answer: Answer::Download,
        build: export,
    },
    Route {
        method: "POST",
        path: "/v1/import",
        summary: "Import one session in Omni's export format (up to 16 MiB here; `omnictl import` sends bigger ones in pieces). The same content imported again adds nothing",
        query: &[],
        body: Some(|| {
            object(
                json!({
                    "session": {"$ref": "#/components/schemas/ExportedSession"},
                    "file": {"type": "string", "description": "Where it came from, for the session's origin (default: http)"}
                }),
                &["session"],
            )
        }),
        reply: "ImportOutcome",
        answer: Answer::Json(200),
        build: import,
    },
    Route {
        method: "GET",
        path: "/v1/search",
        summary: "Full-text search over every session's nodes, every branch included: ranked hits with the session's title, the node, a snippet with its matches (byte ranges) and whether the node is reverted; sessions in the trash are left out, archived ones unless asked",
        query: &[
            (
                "q",
                "the words (required); every word must match; \"a phrase\", a OR b, -word",
            ),
            (
                "session",
                "only this session's nodes (an id, a prefix or current)",
            ),
            ("role", "only nodes of this role: user, model or tool"),
            (
                "since",
                "only nodes made since: a date, today, yesterday, an age (7d, 3h) or ms since the epoch",
            ),
            ("limit", "at most this many hits (1 to 1000; default 20)"),
            ("archived", "true: archived sessions too"),
        ],
        body: None,
        reply: "SearchResults",
        answer: Answer::Json(200),
        build: search,
    },
    Route {
        method: "GET",
        path: "/v1/errors",
        summary: "Recorded API errors, newest first",
        query: &[(
            "session",
            "only this session's (an id, a prefix or current)",
        )],
        body: None,
        reply: "ErrorList",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Request::ListErrors {
                session: i.query_session(),
            })
        },
    },
    Route {
        method: "GET",
        path: "/v1/errors/bundle",
        summary: "The diagnostic bundle (errors, requests, transcript) as a JSON download",
        query: &[
            ("session", "the session (default: the current one)"),
            ("error", "only this error"),
        ],
        body: None,
        reply: "",
        answer: Answer::Download,
        build: |i| {
            Ok(Request::ExportLogs {
                session: i.query_session(),
                error: i.query.get("error").cloned(),
            })
        },
    },
    Route {
        method: "POST",
        path: "/v1/errors/{eid}/replay",
        summary: "Send a recorded failing request again, touching no session",
        query: &[],
        body: None,
        reply: "ReplayOutcome",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Request::Replay {
                error: i.error_id.unwrap_or_default(),
            })
        },
    },
];
