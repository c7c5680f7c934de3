//! `Search`: full-text search over every session's nodes. The index finds; the store says
//! what each hit is now: its session's title, whether the session is in the trash or
//! archived (left out), and whether the node is reverted and why (from the session's
//! current tree and moves, read once per session hit).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use omni_proto::{
    ErrorKind, ErrorReply, Highlight, RevertReason, SearchHit, SearchQuery, SearchResults,
};
use uuid::Uuid;

use crate::api::convert::{session_ref, store_error};
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::reverts::revert_reasons_with;
use crate::api::state::Daemon;
use crate::model::SessionRecord;
use crate::search::{Hit, Query, SearchError, SearchIndex, searchable};
use crate::session::{build_tree, indexed};

/// How long a search waits for the index to hold every commit acknowledged before it
/// arrived; past it, the search answers with what the index holds and `complete: false`.
const CATCH_UP_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// The most hits one search returns.
pub const MAX_LIMIT: u32 = 1000;

impl Handle for SearchQuery {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<SearchResults, ErrorReply> {
        search(daemon, self).await
    }
}

async fn search(daemon: &Daemon, asked: SearchQuery) -> Result<SearchResults, ErrorReply> {
    let Some(search) = &daemon.search else {
        return Err(unavailable());
    };
    let query = query_of(daemon, &asked).await?;
    let caught_up = search.caught_up_within(CATCH_UP_PATIENCE).await;
    let found = run_search(daemon, search, query, asked.archived).await;
    let found = found.map_err(|e| match e {
        SearchError::Refused(why) => ErrorReply::new(ErrorKind::InvalidRequest, why.to_string()),
        e @ SearchError::Index(_) => ErrorReply::new(
            ErrorKind::Internal,
            format!(
                "the search failed: {e}; the index is being verified, and rebuilt from the \
                 store if damaged: try again in a moment"
            ),
        ),
        SearchError::Unavailable(_) => unavailable(),
        e => ErrorReply::new(ErrorKind::Internal, format!("the search failed: {e}")),
    })?;
    Ok(SearchResults {
        hits: described(daemon, found).await,
        complete: caught_up && SearchIndex::complete(search),
    })
}

/// What a search is told when the index could not be opened.
fn unavailable() -> ErrorReply {
    ErrorReply::new(
        ErrorKind::Internal,
        "the search index could not be opened (see omnid's log); it is rebuilt at the next start",
    )
}

/// Runs the search on the blocking pool (tantivy's work, and the store's reads of each hit's
/// session, which keeps only sessions that are searchable now, block).
async fn run_search(
    daemon: &Daemon,
    search: &Arc<SearchIndex>,
    query: Query,
    archived: bool,
) -> Result<Vec<Hit>, SearchError> {
    let (search, store) = (search.clone(), daemon.services.store.clone());
    let runtime = tokio::runtime::Handle::current();
    let searching = tokio::task::spawn_blocking(move || {
        let mut records: HashMap<Uuid, Option<SessionRecord>> = HashMap::new();
        let keep = |id: &Uuid| {
            let record = records
                .entry(*id)
                .or_insert_with(|| runtime.block_on(store.session(id)).ok().flatten());
            record.as_ref().is_some_and(|r| searchable(r, archived))
        };
        search.search(&query, keep)
    });
    searching.await.unwrap_or(Err(SearchError::Stopped))
}

/// The index's query for what the client asked, refused when it cannot be run.
async fn query_of(daemon: &Daemon, asked: &SearchQuery) -> Result<Query, ErrorReply> {
    if asked.text.trim().is_empty() {
        return Err(ErrorReply::new(
            ErrorKind::InvalidRequest,
            "the search is empty: give some words to look for",
        ));
    }
    if asked.limit == 0 || asked.limit > MAX_LIMIT {
        return Err(ErrorReply::new(
            ErrorKind::InvalidRequest,
            format!("the limit must be 1 to {MAX_LIMIT}, not {}", asked.limit),
        ));
    }
    let session = match &asked.session {
        Some(session) => Some(daemon.sessions.resolve(session_ref(session)).await?),
        None => None,
    };
    Ok(Query {
        text: asked.text.clone(),
        session,
        role: asked.role.map(|role| role_name(role).to_string()),
        since_ms: asked.since_ms,
        limit: asked.limit as usize,
    })
}

fn role_name(role: omni_proto::Role) -> &'static str {
    role.as_str()
}

/// Each hit with its session's title and whether it is reverted now.
async fn described(daemon: &Daemon, hits: Vec<Hit>) -> Vec<SearchHit> {
    let mut sessions: HashMap<Uuid, (String, Vec<Option<RevertReason>>)> = HashMap::new();
    let mut described = Vec::with_capacity(hits.len());
    for hit in hits {
        let (title, reasons) = match sessions.entry(hit.session) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(new) => new.insert(session_now(daemon, &hit.session).await),
        };
        let why = match reasons.get(hit.node as usize - 1).copied().flatten() {
            Some(why) => Some(confirm_interrupted(daemon, &hit, why).await),
            None => None,
        };
        described.push(wire_hit(hit, title.clone(), why));
    }
    described
}

/// A session's title and why each node is out of its context now (nothing is known to be
/// out when its tree cannot be read).
async fn session_now(daemon: &Daemon, id: &Uuid) -> (String, Vec<Option<RevertReason>>) {
    let store = &daemon.services.store;
    let Ok(Some(record)) = store.session(id).await.map_err(store_error) else {
        return (String::new(), Vec::new());
    };
    let tree = match store.links(id, record.nodes).await {
        Ok(links) => indexed(store, id, &links)
            .await
            .ok()
            .and_then(|places| build_tree(&record, places.into_iter()).ok()),
        Err(_) => None,
    };
    let mut moves = store.moves(id).await.unwrap_or_default();
    moves.truncate(record.moves as usize);
    let reasons = tree
        .map(|tree| revert_reasons_with(&tree, &moves, |_| false))
        .unwrap_or_default();
    (record.title, reasons)
}

/// A node out of the context that was cut short says so (read only for the nodes hit).
async fn confirm_interrupted(daemon: &Daemon, hit: &Hit, why: RevertReason) -> RevertReason {
    let node = daemon.services.store.node(&hit.session, hit.node);
    let interrupted = node.await.is_ok_and(|n| n.model.is_some_and(|m| m.interrupted));
    if interrupted {
        RevertReason::Interrupted
    } else {
        why
    }
}

fn wire_hit(hit: Hit, title: String, why: Option<RevertReason>) -> SearchHit {
    let role = match hit.role.as_str() {
        "model" => omni_proto::Role::Model,
        "tool" => omni_proto::Role::Tool,
        _ => omni_proto::Role::User,
    };
    SearchHit {
        session: hit.session.to_string(),
        title,
        node: hit.node,
        role,
        created_at_ms: hit.created_at_ms,
        highlights: hit
            .highlights
            .iter()
            .map(|r| Highlight {
                start: r.start as u32,
                end: r.end as u32,
            })
            .collect(),
        snippet: hit.snippet,
        reverted: why.is_some(),
        why_reverted: why,
    }
}
