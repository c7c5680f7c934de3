//! The routes that list, name and keep sessions: a page of the listing, the title, the
//! archive and the trash. Part of the route table (see [`super::routes::all`]).

use omni_proto::{
    Before, ErrorReply, OriginKind, Place, PlaceChange, Purge, Rename, Request, SessionQuery,
    Shown, parse_since,
};
use serde_json::json;

use super::input::{Input, invalid, object};
use super::route::{Answer, Route};
use crate::time::now_ms;

/// The session routes.
pub const SESSION_ROUTES: &[Route] = &[
    Route {
        method: "GET",
        path: "/v1/sessions",
        summary: "A page of sessions, last active first (what `omnictl --json sessions` prints); \
                  `next_before` asks for the next page",
        query: &[
            ("limit", "at most this many (default 50, at most 1000)"),
            (
                "before",
                "where the page starts: a page's next_before (the sessions listed after it), or a time as since takes it (those last active before it)",
            ),
            (
                "since",
                "only sessions active since: a date, today, yesterday, an age (7d, 12h) or ms",
            ),
            ("origin", "own, proxy or import"),
            (
                "model",
                "only sessions that ask or were answered by a model whose name contains this",
            ),
            ("archived", "true: archived sessions too"),
            ("trash", "true: the trash instead"),
        ],
        body: None,
        reply: "SessionList",
        answer: Answer::Json(200),
        build: list,
    },
    Route {
        method: "PUT",
        path: "/v1/sessions/{id}/title",
        summary: "Name the session (its first prompt no longer sets the title)",
        query: &[],
        body: Some(|| object(json!({"title": {"type": "string"}}), &["title"])),
        reply: "SessionSummary",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Rename {
                session: i.session(),
                title: i.string("title")?,
            }
            .into())
        },
    },
    place_route(
        "/v1/sessions/{id}/archive",
        "Hide the session from listings",
        archive,
    ),
    place_route(
        "/v1/sessions/{id}/unarchive",
        "Show an archived session in listings again",
        unarchive,
    ),
    place_route(
        "/v1/sessions/{id}/delete",
        "Move the session to the trash (restorable for trash.keep_days, then purged)",
        delete,
    ),
    place_route(
        "/v1/sessions/{id}/restore",
        "Take the session out of the trash",
        restore,
    ),
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/purge",
        summary: "Erase the session for good: from the store, the proxy's chains and the \
                  diagnostic records; after omnid's next start no byte of it is left in the \
                  data directory's files",
        query: &[],
        body: None,
        reply: "Purged",
        answer: Answer::Json(200),
        build: |i| {
            Ok(Purge {
                session: i.session(),
            }
            .into())
        },
    },
];

/// `POST /v1/sessions/{id}/ACTION`: no body, the session's summary back.
const fn place_route(
    path: &'static str,
    summary: &'static str,
    build: fn(Input) -> Result<Request, ErrorReply>,
) -> Route {
    Route {
        method: "POST",
        path,
        summary,
        query: &[],
        body: None,
        reply: "SessionSummary",
        answer: Answer::Json(200),
        build,
    }
}

fn place(input: Input, change: PlaceChange) -> Result<Request, ErrorReply> {
    Ok(Place {
        session: input.session(),
        change,
    }
    .into())
}

fn archive(input: Input) -> Result<Request, ErrorReply> {
    place(input, PlaceChange::Archive)
}

fn unarchive(input: Input) -> Result<Request, ErrorReply> {
    place(input, PlaceChange::Unarchive)
}

fn delete(input: Input) -> Result<Request, ErrorReply> {
    place(input, PlaceChange::Delete)
}

fn restore(input: Input) -> Result<Request, ErrorReply> {
    place(input, PlaceChange::Restore)
}

/// `GET /v1/sessions?limit=&before=&since=&origin=&model=&archived=&trash=`.
fn list(input: Input) -> Result<Request, ErrorReply> {
    let now = now_ms();
    let time = |name: &str| {
        input
            .query
            .get(name)
            .map(|text| {
                parse_since(text, now).map_err(|_| {
                    invalid(format!(
                        "?{name}={text:?} is not a time: give a date (2026-11-01), today, \
                         yesterday, an age (7d, 12h) or ms since the epoch"
                    ))
                })
            })
            .transpose()
    };
    let limit = input.number::<u32>("limit")?;
    let origin = input
        .query
        .get("origin")
        .map(|text| OriginKind::parse(text).map_err(invalid))
        .transpose()?;
    let shown = match (input.flag("archived")?, input.flag("trash")?) {
        (_, true) => Shown::Trash,
        (true, false) => Shown::WithArchived,
        (false, false) => Shown::Listed,
    };
    let query = SessionQuery {
        limit,
        before: match input.query.get("before") {
            Some(text) => match Before::parse_place(text) {
                Some(place) => Some(place),
                None => time("before")?.map(Before::Time),
            },
            None => None,
        },
        since_ms: time("since")?,
        origin,
        model: input.query.get("model").cloned(),
        shown,
    };
    Ok(query.into())
}
