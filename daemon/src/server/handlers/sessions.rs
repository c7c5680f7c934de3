//! `Sessions`: every session, newest first; and the shared reads of one session.

use omni_proto::{ErrorKind, ErrorReply, Reply, SessionRef};

use crate::errors::{reply, store_error};
use crate::session::record::{NodeRecord, SessionRecord};
use crate::session::tree::Tree;
use crate::session::{build_tree, views};
use crate::state::Daemon;

pub fn handle(daemon: &Daemon) -> Result<Reply, ErrorReply> {
    let current = daemon.sessions.context().current.get();
    let mut records = daemon.store.sessions().map_err(store_error)?;
    records.sort_by(|a, b| b.created_at_ms.cmp(&a.created_at_ms).then(b.id.cmp(&a.id)));
    let summaries = records
        .iter()
        .map(|record| {
            let head = head_node(daemon, record)?;
            Ok(views::summary(
                record,
                Some(record.id) == current,
                head.as_ref(),
            ))
        })
        .collect::<Result<_, ErrorReply>>()?;
    Ok(Reply::Sessions(summaries))
}

/// A session's record, read straight from the store.
pub fn record(daemon: &Daemon, session: &SessionRef) -> Result<SessionRecord, ErrorReply> {
    let id = daemon.sessions.resolve(session)?;
    daemon
        .store
        .session(&id)
        .map_err(store_error)?
        .ok_or_else(|| reply(ErrorKind::NotFound, format!("session {id} does not exist")))
}

/// A session's head node (none at the start of the conversation).
pub fn head_node(
    daemon: &Daemon,
    record: &SessionRecord,
) -> Result<Option<NodeRecord>, ErrorReply> {
    if record.head == 0 {
        return Ok(None);
    }
    daemon
        .store
        .node(&record.id, record.head)
        .map(Some)
        .map_err(store_error)
}

/// Reads a session's record, tree and nodes straight from the store. The record is read
/// first: nodes committed after it (by a concurrent send) are left out, so the view is a
/// consistent snapshot.
pub fn load(
    daemon: &Daemon,
    session: &SessionRef,
) -> Result<(SessionRecord, Tree, Vec<NodeRecord>), ErrorReply> {
    let record = record(daemon, session)?;
    let mut nodes = daemon.store.nodes(&record.id).map_err(store_error)?;
    nodes.truncate(record.nodes as usize);
    let tree = build_tree(&record, &nodes)?;
    Ok((record, tree, nodes))
}
