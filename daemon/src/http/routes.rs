//! The HTTP API's routes, declared once: the router, the request each route becomes and
//! the OpenAPI document are all built from [`all`]. A route only translates: it turns
//! the path, query and JSON body into an [`omni_proto::Request`] that the socket protocol
//! carries too, and the one request set handles it.

use omni_proto::{
    Attach, Branches, Cancel, ExportLogs, ListErrors, Move, MoveOp, Recover, Replay, Resume, Retry,
    SetModel, ShowSession, Status, Tree,
};

use super::bodies::{CheckoutBody, ModelBody, RecoverBody};
use super::input::{compact, history, new_session, send, session_ref, tool_result};
use super::queries::{BundleQuery, ErrorsQuery};
use super::route::{Answer, Plain, Route, WithBody, WithQuery};

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
        answer: Answer::Json(200),
        takes: &Plain(|_| Ok(Status)),
    },
    Route {
        method: "POST",
        path: "/v1/sessions",
        summary: "Create a session (it becomes the current one), optionally with tools, its own model and fallback chain, and a system instruction",
        answer: Answer::Json(201),
        takes: &WithBody(new_session),
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}",
        summary: "One session's summary and state",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(ShowSession {
                session: i.session(),
            })
        }),
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/history",
        summary: "The transcript (what `omnictl --json history` prints)",
        answer: Answer::Json(200),
        takes: &WithQuery(history),
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/tree",
        summary: "The shape of the session's whole tree, without texts (each node's parent, role, and whether it is reverted or compacted)",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Tree {
                session: i.session(),
            })
        }),
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/branches",
        summary: "Every leaf of the session's tree",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Branches {
                session: i.session(),
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/send",
        summary: "Send a prompt; the answer streams as server-sent events (or, with `Accept: application/json`, arrives whole)",
        answer: Answer::Streams,
        takes: &WithBody(send),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/retry",
        summary: "Answer the prompt a failed send left pending again, as it is; streams like send",
        answer: Answer::Streams,
        takes: &Plain(|i| {
            Ok(Retry {
                session: i.session(),
            })
        }),
    },
    Route {
        method: "PUT",
        path: "/v1/sessions/{id}/model",
        summary: "Switch the model the session asks, from its next send on",
        answer: Answer::Json(200),
        takes: &WithBody(|i, body: ModelBody| {
            Ok(SetModel {
                session: i.session(),
                model: body.model,
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/cancel",
        summary: "Cancel the answer in flight; the partial answer is kept out of the context",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Cancel {
                session: i.session(),
            })
        }),
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/events",
        summary: "Follow the session: server-sent events of everything it does, until you disconnect",
        answer: Answer::Follows,
        takes: &Plain(|i| {
            Ok(Attach {
                session: i.session(),
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/undo",
        summary: "Take the last answer out of the context (redo brings it back)",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Move {
                session: i.session(),
                op: MoveOp::Undo,
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/back",
        summary: "Take the last whole round out of the context (redo brings it back)",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Move {
                session: i.session(),
                op: MoveOp::Back,
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/redo",
        summary: "Take back the last undo or back",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Move {
                session: i.session(),
                op: MoveOp::Redo,
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/checkout",
        summary: "Continue from any node (a new prompt there forks a branch)",
        answer: Answer::Json(200),
        takes: &WithBody(|i, body: CheckoutBody| {
            Ok(Move {
                session: i.session(),
                op: MoveOp::Checkout { node: body.node },
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/tool-results",
        summary: "Submit one function call's result; with the last one the continuation streams",
        answer: Answer::Streams,
        takes: &WithBody(tool_result),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/recover",
        summary: "Choose a way out of needs-recovery; `retry` and `compact` stream the new answer",
        answer: Answer::Streams,
        takes: &WithBody(|i, body: RecoverBody| {
            Ok(Recover {
                session: i.session(),
                action: body.action,
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/compact",
        summary: "Summarise the context up to its last rounds into one summary node: the model sees the summary from then on, the covered nodes stay in the tree, and `undo` right after returns to the full context. Streams `compacting` and any retries, then the result",
        answer: Answer::Streams,
        takes: &WithBody(compact),
    },
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/resume",
        summary: "Lift a suspension after repeated failed sends",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Resume {
                session: i.session(),
            })
        }),
    },
    Route {
        method: "GET",
        path: "/v1/errors",
        summary: "Recorded API errors, newest first",
        answer: Answer::Json(200),
        takes: &WithQuery(|_, query: ErrorsQuery| {
            Ok(ListErrors {
                session: query.session.as_deref().map(session_ref),
            })
        }),
    },
    Route {
        method: "GET",
        path: "/v1/errors/bundle",
        summary: "The diagnostic bundle (errors, requests, transcript) as a JSON download",
        answer: Answer::Download,
        takes: &WithQuery(|_, query: BundleQuery| {
            Ok(ExportLogs {
                session: query.session.as_deref().map(session_ref),
                error: query.error,
            })
        }),
    },
    Route {
        method: "POST",
        path: "/v1/errors/{eid}/replay",
        summary: "Send a recorded failing request again, touching no session",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Replay {
                error: i.error_id.clone().unwrap_or_default(),
            })
        }),
    },
];
