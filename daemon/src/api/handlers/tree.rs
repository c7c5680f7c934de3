//! `HistoryPage` and `Tree`: a long session a screen at a time. Both read the session's
//! index (each node's parent and role) and move log instead of every node, so their cost
//! follows the page, not the session's length. A damaged session, or one whose usage
//! was never summed on its record, is read whole instead.

use omni_proto::{ErrorReply, HistoryPage, HistoryView, Tree as TreeRequest, TreeShape};
use uuid::Uuid;

use super::sessions::{context, load};
use crate::api::convert::{session_ref, store_error};
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::reverts::revert_reasons_with;
use crate::api::state::Daemon;
use crate::api::views::page::{self, Standings};
use crate::api::views::usage;
use crate::model::SessionRecord;
use crate::session::tree::Tree;
use crate::session::{build_tree, indexed};
use crate::store::Link;

/// Entries at most per page.
const MOST: u32 = 1000;

/// What the index tells of a session.
struct Indexed {
    record: SessionRecord,
    links: Vec<Link>,
    tree: Tree,
    standings: Standings,
}

/// The session's tree from its index, or `None` when it must be read whole.
async fn indexed_read(daemon: &Daemon, id: &Uuid) -> Result<Option<Indexed>, ErrorReply> {
    let store = &daemon.services.store;
    if daemon.sessions.damaged().get(id).is_some() {
        return Ok(None);
    }
    let Ok(Some(record)) = store.session(id).await else {
        return Ok(None);
    };
    let answered = record.moves > 0;
    if record.usage.is_empty() && answered {
        return Ok(None);
    }
    let Ok(links) = store.links(id, record.nodes).await else {
        return Ok(None);
    };
    let Ok(places) = indexed(store, id, &links).await else {
        return Ok(None);
    };
    let Ok(tree) = build_tree(&record, places.into_iter()) else {
        return Ok(None);
    };
    let mut moves = store.moves(id).await.map_err(store_error)?;
    moves.truncate(record.moves as usize);
    let reasons = revert_reasons_with(&tree, &moves, |_| false);
    let standings = Standings::of(&tree, reasons);
    Ok(Some(Indexed {
        record,
        links,
        tree,
        standings,
    }))
}

impl Handle for HistoryPage {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<HistoryView, ErrorReply> {
        history_page(daemon, self).await
    }
}

/// A page of the transcript.
async fn history_page(daemon: &Daemon, asked: HistoryPage) -> Result<HistoryView, ErrorReply> {
    let HistoryPage {
        session,
        active_only,
        before,
        limit,
    } = asked;
    let session = &session;
    let limit = limit.clamp(1, MOST);
    let id = daemon.sessions.resolve(session_ref(session)).await?;
    let Some(read) = indexed_read(daemon, &id).await? else {
        let whole = load(daemon, session)
            .await?
            .history(daemon, active_only)
            .await?;
        return Ok(page::page_of(whole, before, limit));
    };
    let standings = &read.standings;
    let listed = (1..=read.record.nodes).filter(|&node| !active_only || standings.in_context(node));
    let (ids, earlier) = page::window(listed, before, limit);
    let store = &daemon.services.store;
    let mut nodes = Vec::with_capacity(ids.len());
    for &node in &ids {
        nodes.push(store.node(&id, node).await.map_err(store_error)?);
    }
    let prices = &daemon.services.live.get().config.prices;
    let totals = usage::totals(&read.record.usage, prices);
    let gauge = context(daemon, &read.record).await;
    Ok(page::history_page(
        &read.record,
        &read.tree,
        nodes,
        standings,
        earlier,
        totals,
        gauge,
    ))
}

/// The shape of the whole tree.
impl Handle for TreeRequest {
    async fn handle(self, daemon: &Daemon, _: &mut Responder<'_>) -> Result<TreeShape, ErrorReply> {
        let id = daemon.sessions.resolve(session_ref(&self.session)).await?;
        match indexed_read(daemon, &id).await? {
            Some(read) => Ok(page::shape(&read.record, &read.links, &read.standings)),
            None => {
                let whole = load(daemon, &self.session)
                    .await?
                    .history(daemon, false)
                    .await?;
                Ok(page::shape_of(&whole))
            }
        }
    }
}
