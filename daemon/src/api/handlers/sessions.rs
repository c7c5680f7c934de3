//! The shared reads of one session, which show a damaged session as it is stored rather
//! than failing (the listing itself is `listing.rs`).

use omni_proto::{ErrorKind, ErrorReply, RecoveryPreview, SessionRef};
use uuid::Uuid;

use crate::api::convert::session_ref;
use crate::api::convert::store_error;
use crate::api::state::Daemon;
use crate::api::views;
use crate::model::{NodeRecord, SessionRecord};
use crate::session::registry::is_bad_record;
use crate::session::tree::{NodeId, Tree};
use crate::session::{build_tree, indexed, places};

/// A session's record, read straight from the store.
pub async fn record(daemon: &Daemon, session: &SessionRef) -> Result<SessionRecord, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session)).await?;
    daemon
        .services
        .store
        .session(&id).await
        .map_err(store_error)?
        .ok_or_else(|| ErrorReply::new(ErrorKind::NotFound, format!("session {id} does not exist")))
}

/// What each way out of *needs recovery* would take out of the context. Reads the tree
/// only for a session that needs recovery; one whose tree cannot be read offers none.
pub async fn recovery_choices(daemon: &Daemon, record: &SessionRecord) -> Vec<RecoveryPreview> {
    if record.needs_recovery.is_none() {
        return Vec::new();
    }
    let Ok(links) = daemon.services.store.links(&record.id, record.nodes).await else {
        return Vec::new();
    };
    let Ok(places) = indexed(&daemon.services.store, &record.id, &links).await else {
        return Vec::new();
    };
    let too_long = too_long(daemon, record).await;
    build_tree(record, places.into_iter())
        .map(|tree| views::recovery_choices(record, &tree, too_long))
        .unwrap_or_default()
}

/// Whether the failure the session needs recovery from says the context is too long
/// (its diagnostic record's class: the API's answer, or Omni's own estimate).
async fn too_long(daemon: &Daemon, record: &SessionRecord) -> bool {
    let error_id = record
        .needs_recovery
        .as_ref()
        .and_then(|r| r.error_id.as_ref());
    let Some(id) = error_id else {
        return false;
    };
    let found = daemon.services.diag.find(id).await;
    found.is_ok_and(|found| found.class == "context_too_long")
}

/// How full the context at the session's head is.
pub async fn context(daemon: &Daemon, record: &SessionRecord) -> omni_proto::ContextGauge {
    let live = daemon.services.live.get();
    let gauge = daemon.contexts.at_head(&daemon.services, &live, record).await;
    views::context::gauge(&gauge)
}

/// Whether `redo` has a move to take back (a record the store cannot read says no).
pub async fn can_redo(daemon: &Daemon, record: &SessionRecord) -> bool {
    crate::session::redo::redoable(&daemon.services.store, record).await.is_ok_and(|m| m.is_some())
}

/// A session's head node (none at the start of the conversation).
pub async fn head_node(
    daemon: &Daemon,
    record: &SessionRecord,
) -> Result<Option<NodeRecord>, ErrorReply> {
    if record.head == 0 {
        return Ok(None);
    }
    daemon
        .services
        .store
        .node(&record.id, record.head)
        .await
        .map(Some)
        .map_err(store_error)
}

/// What a read of one session found.
pub enum Loaded {
    /// A consistent snapshot.
    Whole {
        record: Box<SessionRecord>,
        tree: Tree,
        nodes: Vec<NodeRecord>,
    },
    /// A damaged session, as far as it can be read.
    Damaged {
        id: Uuid,
        head: Option<NodeId>,
        nodes: Vec<NodeRecord>,
        reason: String,
    },
}

impl Loaded {
    /// The transcript. The whole one also reads the move log, which says why each node
    /// out of the context is out.
    pub async fn history(
        self,
        daemon: &Daemon,
        active_only: bool,
    ) -> Result<omni_proto::HistoryView, ErrorReply> {
        Ok(match self {
            Loaded::Whole {
                record,
                tree,
                nodes,
            } => {
                let mut moves = if active_only {
                    Vec::new()
                } else {
                    daemon
                        .services
                        .store
                        .moves(&record.id)
                        .await.map_err(store_error)?
                };
                moves.truncate(record.moves as usize);
                let prices = &daemon.services.live.get().config.prices;
                let context = context(daemon, &record).await;
                views::history(&record, &tree, nodes, &moves, active_only, prices, context)
            }
            Loaded::Damaged {
                id,
                head,
                nodes,
                reason,
            } => {
                let context = views::context::unmeasured();
                views::damaged_history(&id, head, nodes, &reason, active_only, context)
            }
        })
    }
}

/// Reads a session's record, tree and nodes straight from the store. The record is read
/// first: nodes committed after it (by a concurrent send) are left out, so the view is a
/// consistent snapshot. A session whose records disagree is marked damaged and read as
/// it is stored.
pub async fn load(daemon: &Daemon, session: &SessionRef) -> Result<Loaded, ErrorReply> {
    let id = daemon.sessions.resolve(session_ref(session)).await?;
    let damaged = daemon.sessions.damaged();
    let as_stored = async |head: Option<NodeId>, reason: String| {
        damaged.mark(id, &reason);
        let (nodes, _) = daemon
            .services
            .store
            .readable_nodes(&id)
            .await.map_err(store_error)?;
        Ok(Loaded::Damaged {
            id,
            head,
            nodes,
            reason: damaged.get(&id).unwrap_or(reason),
        })
    };
    let record = match daemon.services.store.session(&id).await {
        Ok(Some(record)) => record,
        Ok(None) => {
            return Err(ErrorReply::new(
                ErrorKind::NotFound,
                format!("session {id} does not exist"),
            ));
        }
        Err(error) if is_bad_record(&error) => {
            return as_stored(None, format!("its record cannot be read ({error})")).await;
        }
        Err(error) => return Err(store_error(error)),
    };
    let mut nodes = match daemon.services.store.nodes(&id).await {
        Ok(nodes) => nodes,
        Err(error) if is_bad_record(&error) => {
            return as_stored(
                Some(record.head),
                format!("a node cannot be read ({error})"),
            )
            .await;
        }
        Err(error) => return Err(store_error(error)),
    };
    nodes.truncate(record.nodes as usize);
    if let Some(reason) = damaged.get(&id) {
        return as_stored(Some(record.head), reason).await;
    }
    match build_tree(&record, places(&nodes)) {
        Ok(tree) => Ok(Loaded::Whole {
            record: Box::new(record),
            tree,
            nodes,
        }),
        Err(reason) => as_stored(Some(record.head), reason).await,
    }
}
