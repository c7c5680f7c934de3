//! Reading the store: session records, a session's nodes and moves, and the lookups that
//! check a record against what is stored. Reads never wait behind a commit.

use uuid::Uuid;

use super::formats::{decode_move, decode_node, decode_session};
use super::{SledStore, StoreError, StoredSession, child_key, key_number};
use crate::model::{MoveRecord, NodeId, NodeRecord, SessionRecord};

impl SledStore {
    /// A session's record.
    pub fn session(&self, id: &Uuid) -> Result<Option<SessionRecord>, StoreError> {
        self.db
            .get()?
            .sessions
            .get(id.as_bytes())?
            .map(|v| decode_session(&v))
            .transpose()
    }

    /// Whether a session's record was written before records kept their usage totals
    /// (format 4 or older): only such a record's totals must be counted from its nodes.
    pub fn session_predates_usage(&self, id: &Uuid) -> Result<bool, StoreError> {
        let value = self.db.get()?.sessions.get(id.as_bytes())?;
        Ok(value.is_some_and(|v| v.first().is_some_and(|format| *format < 5)))
    }

    /// Every session's record (or why it cannot be read), in key order.
    pub fn sessions(&self) -> Result<Vec<StoredSession>, StoreError> {
        let mut found = Vec::new();
        for item in self.db.get()?.sessions.iter() {
            let (key, value) = item?;
            match Uuid::from_slice(&key) {
                Ok(id) => found.push(StoredSession {
                    id,
                    record: decode_session(&value),
                }),
                Err(_) => tracing::warn!(key = ?key, "a session key that is not an id; ignored"),
            }
        }
        Ok(found)
    }

    /// Every node of a session, in creation order.
    pub fn nodes(&self, session: &Uuid) -> Result<Vec<NodeRecord>, StoreError> {
        let db = self.db.get()?;
        db.nodes
            .scan_prefix(session.as_bytes())
            .map(|item| {
                let (key, value) = item?;
                self.decode_stored_node(session, key_number(&key).unwrap_or_default(), &value)
            })
            .collect()
    }

    /// A node as the nodes tree holds it, read back (from its own file if it was kept
    /// apart: see `apart.rs`).
    fn decode_stored_node(
        &self,
        session: &Uuid,
        number: NodeId,
        value: &[u8],
    ) -> Result<NodeRecord, StoreError> {
        decode_node(&super::apart::resolved(&self.dir, session, number, value)?)
    }

    /// Every node of a session that can be read, and what is wrong with those that
    /// cannot: how a damaged session is still shown.
    pub fn readable_nodes(
        &self,
        session: &Uuid,
    ) -> Result<(Vec<NodeRecord>, Vec<String>), StoreError> {
        let (mut nodes, mut problems) = (Vec::new(), Vec::new());
        for item in self.db.get()?.nodes.scan_prefix(session.as_bytes()) {
            let (key, value) = item?;
            let number = key_number(&key).unwrap_or_default();
            match self.decode_stored_node(session, number, &value) {
                Ok(node) => nodes.push(node),
                Err(error) => problems.push(format!(
                    "node {}: {error}",
                    key_number(&key).unwrap_or_default()
                )),
            }
        }
        Ok((nodes, problems))
    }

    /// One node of a session; a missing node is corruption (the tree said it exists).
    pub fn node(&self, session: &Uuid, id: NodeId) -> Result<NodeRecord, StoreError> {
        match self.db.get()?.nodes.get(child_key(session, id))? {
            Some(value) => self.decode_stored_node(session, id, &value),
            None => Err(StoreError::Corrupt(format!(
                "node {id} of session {session} is missing"
            ))),
        }
    }

    /// Whether node `node` and move `mv` of a session are stored (number 0 always is):
    /// two key lookups, however long the session.
    pub fn holds(&self, session: &Uuid, node: NodeId, mv: u64) -> Result<(bool, bool), StoreError> {
        let db = self.db.get()?;
        let held = |tree: &sled::Tree, number: u64| -> Result<bool, StoreError> {
            Ok(number == 0 || tree.contains_key(child_key(session, number))?)
        };
        Ok((held(&db.nodes, node)?, held(&db.moves, mv)?))
    }

    /// One move of a session's log.
    pub fn move_record(&self, session: &Uuid, seq: u64) -> Result<Option<MoveRecord>, StoreError> {
        self.db
            .get()?
            .moves
            .get(child_key(session, seq))?
            .map(|v| decode_move(&v))
            .transpose()
    }

    /// A session's whole move log, oldest first: what the transcript reads to say why a
    /// node is out of the context.
    pub fn moves(&self, session: &Uuid) -> Result<Vec<MoveRecord>, StoreError> {
        self.db
            .get()?
            .moves
            .scan_prefix(session.as_bytes())
            .values()
            .map(|v| decode_move(&v?))
            .collect()
    }
}
