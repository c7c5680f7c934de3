//! The routes that list, name and keep sessions: a page of the listing, the title, the
//! archive and the trash. Part of the route table (see [`super::routes::all`]).

use omni_proto::{
    Before, ErrorReply, OriginKind, Place, PlaceChange, Purge, Rename, SessionQuery, Shown,
    parse_since,
};

use super::bodies::TitleBody;
use super::input::{Input, invalid};
use super::queries::ListQuery;
use super::route::{Answer, Plain, Route, Takes, WithBody, WithQuery};
use crate::time::now_ms;

/// The session routes.
pub const SESSION_ROUTES: &[Route] = &[
    Route {
        method: "GET",
        path: "/v1/sessions",
        summary: "A page of sessions, last active first (what `omnictl --json sessions` prints); \
                  `next_before` asks for the next page",
        answer: Answer::Json(200),
        takes: &WithQuery(list),
    },
    Route {
        method: "PUT",
        path: "/v1/sessions/{id}/title",
        summary: "Name the session (its first prompt no longer sets the title)",
        answer: Answer::Json(200),
        takes: &WithBody(|i, body: TitleBody| {
            Ok(Rename {
                session: i.session(),
                title: body.title,
            })
        }),
    },
    place_route(
        "/v1/sessions/{id}/archive",
        "Hide the session from listings",
        &Plain(archive),
    ),
    place_route(
        "/v1/sessions/{id}/unarchive",
        "Show an archived session in listings again",
        &Plain(unarchive),
    ),
    place_route(
        "/v1/sessions/{id}/delete",
        "Move the session to the trash (restorable for trash.keep_days, then purged)",
        &Plain(delete),
    ),
    place_route(
        "/v1/sessions/{id}/restore",
        "Take the session out of the trash",
        &Plain(restore),
    ),
    Route {
        method: "POST",
        path: "/v1/sessions/{id}/purge",
        summary: "Erase the session for good: from the store, the proxy's chains and the \
                  diagnostic records; after omnid's next start no byte of it is left in the \
                  data directory's files",
        answer: Answer::Json(200),
        takes: &Plain(|i| {
            Ok(Purge {
                session: i.session(),
            })
        }),
    },
];

/// `POST /v1/sessions/{id}/ACTION`: no body, the session's summary back.
const fn place_route(
    path: &'static str,
    summary: &'static str,
    takes: &'static dyn Takes,
) -> Route {
    Route {
        method: "POST",
        path,
        summary,
        answer: Answer::Json(200),
        takes,
    }
}

fn place(input: &Input, change: PlaceChange) -> Result<Place, ErrorReply> {
    Ok(Place {
        session: input.session(),
        change,
    })
}

fn archive(input: &Input) -> Result<Place, ErrorReply> {
    place(input, PlaceChange::Archive)
}

fn unarchive(input: &Input) -> Result<Place, ErrorReply> {
    place(input, PlaceChange::Unarchive)
}

fn delete(input: &Input) -> Result<Place, ErrorReply> {
    place(input, PlaceChange::Delete)
}

fn restore(input: &Input) -> Result<Place, ErrorReply> {
    place(input, PlaceChange::Restore)
}

/// `GET /v1/sessions?limit=&before=&since=&origin=&model=&archived=&trash=`.
fn list(_: &Input, asked: ListQuery) -> Result<SessionQuery, ErrorReply> {
    let now = now_ms();
    let time = |name: &str, text: Option<&String>| {
        text.map(|text| {
            parse_since(text, now).map_err(|_| {
                invalid(format!(
                    "?{name}={text:?} is not a time: give a date (2026-11-01), today, \
                     yesterday, an age (7d, 12h) or ms since the epoch"
                ))
            })
        })
        .transpose()
    };
    let origin = asked
        .origin
        .as_deref()
        .map(|text| OriginKind::parse(text).map_err(invalid))
        .transpose()?;
    let shown = match (asked.archived, asked.trash) {
        (_, true) => Shown::Trash,
        (true, false) => Shown::WithArchived,
        (false, false) => Shown::Listed,
    };
    let before = match &asked.before {
        Some(text) => match Before::parse_place(text) {
            Some(place) => Some(place),
            None => time("before", Some(text))?.map(Before::Time),
        },
        None => None,
    };
    Ok(SessionQuery {
        limit: asked.limit,
        before,
        since_ms: time("since", asked.since.as_ref())?,
        origin,
        model: asked.model,
        shown,
    })
}
