//! A whole session written at once (an import, or a new conversation recorded through the
//! proxy): its origin, every node with its index chunks, every move, its place in the
//! listing by activity, the record, then what points at it: an import's content hash that
//! makes importing the same content again add nothing, a recorded conversation's chain
//! entries. One ordered change like any other (see
//! [`SledStore::apply`]): sled recovers a prefix of its log, and readers go by the record, so
//! a crash part-way leaves nothing visible.

use uuid::Uuid;

use super::formats::{MOVE_FORMAT, SESSION_FORMAT};
use super::{
    ContentHash, Import, SledStore, StoreError, activity, chains, child_key, codec, links,
};

/// Format of the `imports` tree's values.
const IMPORTS_FORMAT: u8 = 1;

/// The session an `imports` entry's value names, if it can be read.
pub(super) fn session_of(value: &[u8]) -> Option<Uuid> {
    codec::decode::<Uuid>(value, "import", IMPORTS_FORMAT).ok()
}

impl SledStore {
    /// The session an earlier import of this content created, if any.
    pub fn imported(&self, hash: &ContentHash) -> Result<Option<Uuid>, StoreError> {
        let Some(value) = self.db.get()?.imports.get(hash)? else {
            return Ok(None);
        };
        codec::decode::<Uuid>(&value, "import", IMPORTS_FORMAT).map(Some)
    }

    /// Every import's content hash and the session it made.
    pub fn import_entries(&self) -> Result<Vec<(ContentHash, Uuid)>, StoreError> {
        let db = self.db.get()?;
        let mut entries = Vec::new();
        for entry in db.imports.iter() {
            let (key, value) = entry?;
            let hash: ContentHash = key[..]
                .try_into()
                .map_err(|_| StoreError::Corrupt("an import key of the wrong length".into()))?;
            entries.push((
                hash,
                codec::decode::<Uuid>(&value, "import", IMPORTS_FORMAT)?,
            ));
        }
        Ok(entries)
    }

    /// Writes a new session whole and waits until it is durable; it is counted as a new
    /// session. The record goes after its nodes and moves and the hash after the record.
    pub async fn import(&self, import: &Import<'_>) -> Result<(), StoreError> {
        let id = import.session.id;
        let origin = match import.origin {
            Some(origin) => Some(codec::encode(&origin.to_string(), IMPORTS_FORMAT)?),
            None => None,
        };
        let nodes = import
            .nodes
            .iter()
            .map(|n| Ok((child_key(&id, n.id), self.node_value(&id, n)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let moves = import
            .moves
            .iter()
            .map(|m| Ok((child_key(&id, m.seq), codec::encode(m, MOVE_FORMAT)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let record = codec::encode(import.session, SESSION_FORMAT)?;
        let hash_value = codec::encode(&id, IMPORTS_FORMAT)?;
        let chain_values = import
            .chains
            .iter()
            .map(|(hash, node)| Ok((hash, chains::value(&id, *node)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let chunks = links::chunks_of(&id, import.nodes);
        let size: usize = nodes
            .iter()
            .chain(&moves)
            .map(|(_, v)| v.len())
            .sum::<usize>()
            + chunks.iter().map(|(_, v)| v.len()).sum::<usize>()
            + record.len();
        self.make_room(size)?;
        let db = self.db.get()?;
        {
            let mut count = self.count.lock();
            let write = || -> Result<(), sled::Error> {
                if let Some(origin) = origin {
                    db.origins.insert(id.as_bytes(), origin)?;
                }
                for (key, value) in &nodes {
                    db.nodes.insert(&key[..], &value[..])?;
                }
                for (key, value) in chunks {
                    db.links.insert(&key[..], value)?;
                }
                for (key, value) in &moves {
                    db.moves.insert(&key[..], &value[..])?;
                }
                // Listed by its last activity, like every session (see `activity.rs`).
                let active = activity::key(import.session.updated_at_ms, &id);
                db.activity.insert(&active[..], sled::IVec::default())?;
                db.sessions.insert(id.as_bytes(), record)?;
                if let Some(hash) = &import.hash {
                    db.imports.insert(&hash[..], hash_value)?;
                }
                for (hash, value) in chain_values {
                    db.chains.insert(&hash[..], value)?;
                }
                Ok(())
            };
            write().map_err(|e| self.failed(&db, StoreError::Sled(e)))?;
            self.observers.applied(id, import.nodes);
            if let Some(known) = count.as_mut() {
                *known += 1;
            }
        }
        self.commits
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.sync().await?;
        self.acknowledged.note(import.session);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeRecord, SessionRecord};
    use crate::model::{Part, Role};

    fn node(id: u64, parent: u64) -> NodeRecord {
        NodeRecord {
            id,
            parent,
            role: if id % 2 == 1 { Role::User } else { Role::Model },
            parts: vec![Part::text(format!("turn {id}"))],
            created_at_ms: id,
            model: None,
        }
    }

    #[tokio::test]
    async fn a_whole_session_is_written_with_its_index_counted_and_its_hash_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        assert_eq!(store.session_count(), 0);
        // 300 nodes: two index chunks; node 200 forks from node 100.
        let nodes: Vec<NodeRecord> = (1..=300)
            .map(|id| node(id, if id == 200 { 100 } else { id - 1 }))
            .collect();
        let id = Uuid::new_v4();
        let mut record = SessionRecord::new(id, 1);
        (record.nodes, record.head) = (300, 300);
        let import = Import {
            session: &record,
            nodes: &nodes,
            moves: &[],
            origin: Some("import (omni: /tmp/x.json)"),
            hash: Some([7; 32]),
            chains: &[],
        };
        store.import(&import).await.unwrap();
        assert_eq!(store.session_count(), 1);
        assert_eq!(store.imported(&[7; 32]).unwrap(), Some(id));
        assert_eq!(store.imported(&[8; 32]).unwrap(), None);
        assert_eq!(store.nodes(&id).unwrap(), nodes);
        assert_eq!(store.session(&id).unwrap(), Some(record));
        assert_eq!(
            store.origin(&id).as_deref(),
            Some("import (omni: /tmp/x.json)")
        );
        let db = store.db.get().unwrap();
        assert_eq!(
            db.links.scan_prefix(id.as_bytes()).count(),
            2,
            "both index chunks written with the nodes"
        );
        let links = store.links(&id, 300).unwrap();
        assert_eq!(links.len(), 300);
        assert_eq!(links[199].parent, 100);
        assert_eq!(links[298].parent, 298);
        assert_eq!(links[298].role, Role::User);
    }
}
