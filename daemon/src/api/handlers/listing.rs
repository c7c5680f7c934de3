//! `Sessions`: a page of sessions, last active first, filtered. Walks the store's index
//! by last activity from the newest end (or from `before`) and reads only the records it
//! looks at, so a page costs the same whatever the number of sessions. A page ends at a
//! place (time and id) no other session shares, so the next one starts exactly after it
//! however many sessions were active in the same millisecond.

use omni_proto::{
    Before, ErrorKind, ErrorReply, OriginKind, SessionPage, SessionQuery, SessionSummary, Shown,
};
use uuid::Uuid;

use super::sessions::{can_redo, context, head_node, recovery_choices};
use crate::api::convert::store_error;
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views;
use crate::model::SessionRecord;

impl Handle for SessionQuery {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<SessionPage, ErrorReply> {
        page(daemon, &self).await
    }
}

async fn page(daemon: &Daemon, query: &SessionQuery) -> Result<SessionPage, ErrorReply> {
    let size = query.page_size();
    let store = &daemon.services.store;
    let mut sessions: Vec<SessionSummary> = Vec::new();
    let mut last = None;
    let mut next_before = None;
    let mut entries = store.by_activity(start(query)?);
    while let Some((ms, id)) = entries.next().await.map_err(store_error)? {
        if query.since_ms.is_some_and(|since| ms < since) {
            break;
        }
        if sessions.len() >= size {
            next_before = last.map(|(ms, id): (u64, Uuid)| Before::place_text(ms, &id.to_string()));
            break;
        }
        let Some(summary) = listed(daemon, query, ms, id).await? else {
            continue;
        };
        last = Some((ms, id));
        sessions.push(summary);
    }
    Ok(SessionPage {
        sessions,
        next_before,
    })
}

/// The place in the index the page starts before.
fn start(query: &SessionQuery) -> Result<Option<(u64, Uuid)>, ErrorReply> {
    match &query.before {
        None => Ok(None),
        Some(Before::Time(ms)) => Ok(Some((*ms, Uuid::nil()))),
        Some(Before::Place { ms, session }) => match Uuid::parse_str(session) {
            Ok(id) => Ok(Some((*ms, id))),
            Err(_) => Err(ErrorReply::new(
                ErrorKind::InvalidRequest,
                format!("{session:?} is not a session id: give `before` a page's next_before"),
            )),
        },
    }
}

/// The session's line if the query shows it; `None` for one it leaves out, and for an
/// index entry a crash left behind (its time is not the record's).
async fn listed(
    daemon: &Daemon,
    query: &SessionQuery,
    ms: u64,
    id: Uuid,
) -> Result<Option<SessionSummary>, ErrorReply> {
    let store = &daemon.services.store;
    let record = match store.session(&id).await {
        Ok(Some(record)) => record,
        Ok(None) => return Ok(None),
        Err(error) => {
            let wanted =
                query.shown != Shown::Trash && query.origin.is_none() && query.model.is_none();
            if !wanted {
                return Ok(None);
            }
            let reason = format!("its record cannot be read ({error})");
            daemon.sessions.damaged().mark(id, &reason);
            return Ok(Some(views::unreadable_summary(&id, &reason)));
        }
    };
    if record.updated_at_ms != ms || !shown(query.shown, &record) {
        return Ok(None);
    }
    let origin = store.origin(&id).await;
    // A recorded conversation whose first turns a crash cut short before they were stored
    // holds nothing: not a session anyone made, so not listed (the next request of that
    // conversation records it again).
    if record.nodes == 0 && origin.is_some() {
        return Ok(None);
    }
    if query
        .origin
        .is_some_and(|kind| OriginKind::of(origin.as_deref()) != kind)
    {
        return Ok(None);
    }
    let live = daemon.services.live.get();
    let head = head_node(daemon, &record).await.ok().flatten();
    let mut summary = views::summary(
        &record,
        daemon.services.current.get() == Some(id),
        head.as_ref(),
        daemon.sessions.damaged().get(&id),
        recovery_choices(daemon, &record).await,
        origin,
        &live.config,
    );
    summary.context = context(daemon, &record).await;
    summary.can_redo = can_redo(daemon, &record).await;
    if let Some(model) = &query.model {
        if !asks_or_answered(&record, &summary, model) {
            return Ok(None);
        }
    }
    Ok(Some(summary))
}

/// Whether a listing of `shown` includes the session.
fn shown(shown: Shown, record: &SessionRecord) -> bool {
    let (archived, trashed) = (
        record.archived_at_ms.is_some(),
        record.deleted_at_ms.is_some(),
    );
    match shown {
        Shown::Listed => !archived && !trashed,
        Shown::WithArchived => !trashed,
        Shown::Trash => trashed,
    }
}

/// Whether the session asks, or was answered by, a model whose name contains `text`
/// (regardless of case).
fn asks_or_answered(record: &SessionRecord, summary: &SessionSummary, text: &str) -> bool {
    let text = text.to_lowercase();
    std::iter::once(summary.model.as_str())
        .chain(record.usage.iter().map(|usage| usage.model.as_str()))
        .any(|model| model.to_lowercase().contains(&text))
}
