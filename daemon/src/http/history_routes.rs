//! The routes of a person's history as a whole: usage and cost, export and import, and
//! full-text search. Part of the route table (see [`super::routes::all`]).

use super::input::{export, import, search, usage};
use super::route::{Answer, Plain, Route, WithBody};

/// The history routes.
pub const HISTORY_ROUTES: &[Route] = &[
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
        answer: Answer::Json(200),
        takes: &Plain(usage),
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
        answer: Answer::Download,
        takes: &Plain(export),
    },
    Route {
        method: "POST",
        path: "/v1/import",
        summary: "Import one session in Omni's export format (up to 16 MiB here; `omnictl import` sends bigger ones in pieces). The same content imported again adds nothing",
        query: &[],
        answer: Answer::Json(200),
        takes: &WithBody(import),
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
        answer: Answer::Json(200),
        takes: &Plain(search),
    },
];
