//! The HTTP API's routes, declared once: the router, the request each route becomes and
//! the OpenAPI document are all built from [`all`]. A route only translates: it turns
//! the path, query and JSON body into an [`omni_proto::Request`] that the socket protocol
//! carries too, and the one request set handles it.

use omni_proto::{
    Attach, Branches, Cancel, ExportLogs, ListErrors, MoveOp, Replay, Resume, Retry, SendPrompt,
    ShowSession, Status, Tree,
};
use serde_json::json;

use super::input::{
    checkout, compact, head_move, history, new_session, object, recover, recovery_actions,
    set_model, tool_result,
};
use super::route::{Answer, Route};

/// Every route of the API, in the order the OpenAPI document lists them.
pub fn all() -> impl Iterator<Item = &'static Route> {
    ROUTES
        .iter()
        .chain(super::session_routes::SESSION_ROUTES)
        .chain(super::history_routes::HISTORY_ROUTES)
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
        build: |_| Ok(Status.into()),
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
            Ok(ShowSession {
                session: i.session(),
            }
            .into())
        },
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/history",
        summary: "The transcript (what `omnictl --json history` prints)",
        query: &[
            (
                "active",
                "true: only the nodes on the path to the head (the model's context)",
            ),
            (
                "limit",
                "a page: at most this many entries, the latest (at most 1000); the reply's `earlier` asks for the page before",
            ),
            (
                "before",
                "with limit: only entries of nodes numbered below this",
            ),
        ],
        body: None,
        reply: "HistoryView",
        answer: Answer::Json(200),
        build: history,
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/tree",
        summary: "The shape of the session's whole tree, without texts (each node's parent, role, and whether it is reverted or compacted)",
        query: &[],
        body: None,
        reply: "TreeShape",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Tree {
                session: i.session(),
            }
            .into())
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
            Ok(Branches {
                session: i.session(),
            }
            .into())
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
            Ok(SendPrompt {
                session: i.session(),
                prompt: i.prompt()?,
                replace: i.optional_bool("replace")?.unwrap_or(false),
            }
            .into())
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
            Ok(Retry {
                session: i.session(),
            }
            .into())
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
            Ok(Cancel {
                session: i.session(),
            }
            .into())
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
            Ok(Attach {
                session: i.session(),
            }
            .into())
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
        summary: "Choose a way out of needs-recovery; `retry` and `compact` stream the new answer",
        query: &[],
        body: Some(|| object(json!({"action": {"enum": recovery_actions()}}), &["action"])),
        reply: "RecoverOutcome",
        answer: Answer::Streams,
        build: recover,
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/compact",
        summary: "Summarise the context up to its last rounds into one summary node: the model sees the summary from then on, the covered nodes stay in the tree, and `undo` right after returns to the full context. Streams `compacting` and any retries, then the result",
        query: &[],
        body: Some(|| {
            object(
                json!({
                    "keep": {"type": "integer", "minimum": 0, "default": 2, "description": "Rounds (a prompt, its answer and tool chain) kept whole after the summary"},
                    "instructions": {"type": "string", "description": "What the summary should keep in mind, added to Omni's own instructions"}
                }),
                &[],
            )
        }),
        reply: "Compacted",
        answer: Answer::Streams,
        build: compact,
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
            Ok(Resume {
                session: i.session(),
            }
            .into())
        },
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
            Ok(ListErrors {
                session: i.query_session(),
            }
            .into())
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
            Ok(ExportLogs {
                session: i.query_session(),
                error: i.query.get("error").cloned(),
            }
            .into())
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
            Ok(Replay {
                error: i.error_id.unwrap_or_default(),
            }
            .into())
        },
    },
];
