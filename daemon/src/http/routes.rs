//! The HTTP API's routes, declared once: the router, the request each route becomes and
//! the OpenAPI document are all built from [`ROUTES`]. A route only translates: it turns
//! the path, query and JSON body into an [`omni_proto::Request`] that the socket protocol
//! carries too, and the one request set handles it.

use std::collections::HashMap;

use omni_proto::{ErrorKind, ErrorReply, MoveOp, RecoveryAction, Request, SessionRef};
use serde_json::{Value, json};

/// What a route's request carries, taken from the path, the query and the body.
pub struct Input {
    /// `{id}` in the path: a session id, a unique prefix, or `current`.
    pub session: Option<SessionRef>,
    /// `{eid}` in the path: a recorded error's id.
    pub error_id: Option<String>,
    /// The query parameters.
    pub query: HashMap<String, String>,
    /// The JSON body (`null` when there is none).
    pub body: Value,
}

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
    /// This API's OpenAPI document.
    Document,
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

fn invalid(message: impl Into<String>) -> ErrorReply {
    ErrorReply::new(ErrorKind::InvalidRequest, message)
}

impl Input {
    fn session(&self) -> SessionRef {
        self.session.clone().unwrap_or(SessionRef::Current)
    }

    fn string(&self, field: &str) -> Result<String, ErrorReply> {
        match &self.body[field] {
            Value::String(text) => Ok(text.clone()),
            Value::Null => Err(invalid(format!("the body needs a \"{field}\" field"))),
            _ => Err(invalid(format!("\"{field}\" must be a string"))),
        }
    }

    fn optional_string(&self, field: &str) -> Result<Option<String>, ErrorReply> {
        match &self.body[field] {
            Value::Null => Ok(None),
            _ => self.string(field).map(Some),
        }
    }

    fn query_session(&self) -> Option<SessionRef> {
        self.query.get("session").map(|id| session_ref(id))
    }

    fn flag(&self, name: &str) -> Result<bool, ErrorReply> {
        match self.query.get(name).map(String::as_str) {
            None | Some("false") | Some("0") => Ok(false),
            Some("true") | Some("1") | Some("") => Ok(true),
            Some(other) => Err(invalid(format!(
                "?{name}= takes true or false, not {other:?}"
            ))),
        }
    }
}

/// `current` names the current session; anything else is an id or a unique prefix.
pub fn session_ref(id: &str) -> SessionRef {
    match id {
        "current" => SessionRef::Current,
        id => SessionRef::Id(id.to_string()),
    }
}

fn head_move(input: Input, op: MoveOp) -> Result<Request, ErrorReply> {
    Ok(Request::Move {
        session: input.session(),
        op,
    })
}

fn new_session(input: Input) -> Result<Request, ErrorReply> {
    let tools_json = match &input.body["tools"] {
        Value::Null => None,
        tools @ Value::Array(_) => Some(tools.to_string()),
        _ => {
            return Err(invalid(
                "\"tools\" must be an array of function declarations",
            ));
        }
    };
    Ok(Request::NewSession { tools_json })
}

fn checkout(input: Input) -> Result<Request, ErrorReply> {
    let node = input.body["node"]
        .as_u64()
        .ok_or_else(|| invalid("the body needs \"node\": a node number (0 is the start)"))?;
    Ok(Request::Move {
        session: input.session(),
        op: MoveOp::Checkout { node },
    })
}

fn tool_result(input: Input) -> Result<Request, ErrorReply> {
    let response = &input.body["response"];
    if !response.is_object() {
        return Err(invalid(
            "\"response\" must be the function's result, a JSON object",
        ));
    }
    Ok(Request::ToolResult {
        session: input.session(),
        call_id: input.optional_string("call_id")?,
        name: input.string("name")?,
        response_json: response.to_string(),
    })
}

fn recover(input: Input) -> Result<Request, ErrorReply> {
    let action: RecoveryAction = serde_json::from_value(input.body["action"].clone())
        .map_err(|_| invalid("\"action\" must be one of deep, clear, ignore, retry"))?;
    Ok(Request::Recover {
        session: input.session(),
        action,
    })
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// Every route of the API, in the order the OpenAPI document lists them.
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
        method: "GET",
        path: "/v1/sessions",
        summary: "All sessions, newest first",
        query: &[],
        body: None,
        reply: "SessionList",
        answer: Answer::Json(200),
        build: |_| Ok(Request::Sessions),
    },
    Route {
        method: "POST",
        path: "/v1/sessions",
        summary: "Create a session (it becomes the current one), optionally with tools",
        query: &[],
        body: Some(|| {
            object(
                json!({"tools": {"type": "array", "items": {"type": "object"}, "description": "Function declarations the model may call"}}),
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
        body: Some(|| object(json!({"prompt": {"type": "string"}}), &["prompt"])),
        reply: "Answer",
        answer: Answer::Streams,
        build: |i| {
            Ok(Request::Send {
                session: i.session(),
                prompt: i.string("prompt")?,
            })
        },
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
    Route {
        method: "GET",
        path: "/v1/openapi.json",
        summary: "This API's OpenAPI 3.1 document",
        query: &[],
        body: None,
        reply: "",
        answer: Answer::Document,
        build: |_| Ok(Request::Ping),
    },
];
