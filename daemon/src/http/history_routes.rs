//! The routes of a person's history as a whole: usage and cost, export and import, and
//! full-text search. Part of the route table (see [`super::routes::all`]).

use super::input::{export, import, search, usage};
use super::route::{Answer, Route, WithBody, WithQuery};

/// The history routes.
pub const HISTORY_ROUTES: &[Route] = &[
    Route {
        method: "GET",
        path: "/v1/usage",
        summary: "Stored answers' tokens (input, cached, output, thinking) and cost, per session, model or day",
        answer: Answer::Json(200),
        takes: &WithQuery(usage),
    },
    Route {
        method: "GET",
        path: "/v1/sessions/{id}/export",
        summary: "The session as a file download: Markdown (the path to the head; `all=true` adds reverted turns struck through), JSON (the whole tree, schema `docs/export.schema.json`) or JSON lines (the session, then one node per line)",
        answer: Answer::Download,
        takes: &WithQuery(export),
    },
    Route {
        method: "POST",
        path: "/v1/import",
        summary: "Import one session in Omni's export format (up to 16 MiB here; `omnictl import` sends bigger ones in pieces). The same content imported again adds nothing",
        answer: Answer::Json(200),
        takes: &WithBody(import),
    },
    Route {
        method: "GET",
        path: "/v1/search",
        summary: "Full-text search over every session's nodes, every branch included: ranked hits with the session's title, the node, a snippet with its matches (byte ranges) and whether the node is reverted; sessions in the trash are left out, archived ones unless asked",
        answer: Answer::Json(200),
        takes: &WithQuery(search),
    },
];
