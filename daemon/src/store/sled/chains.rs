//! Two small indexes beside the session trees. `chains`: the hash of a conversation's
//! contents up to a turn → the session and node where that turn is recorded, so a request
//! that continues (or rewinds) a recorded conversation finds its place with one lookup per
//! candidate prefix, whatever the history's length. `origins`: where a session came from,
//! for sessions recorded from the proxy. Values carry a format byte.

use uuid::Uuid;

use super::{ChainHash, Recorded, SledStore, StoreError, codec};
use crate::model::NodeId;
use crate::model::NodeRecord;

/// Format of both indexes' values.
const INDEX_FORMAT: u8 = 1;

impl SledStore {
    /// The session and node where the conversation `hash` names is recorded, if it is.
    pub fn chain(&self, hash: &ChainHash) -> Result<Option<(Uuid, NodeId)>, StoreError> {
        let Some(value) = self.db.get()?.chains.get(hash)? else {
            return Ok(None);
        };
        codec::decode::<(Uuid, NodeId)>(&value, "chain", INDEX_FORMAT).map(Some)
    }

    /// Every chain entry: the conversation's hash, its session and node.
    pub fn chain_entries(&self) -> Result<Vec<(ChainHash, Uuid, NodeId)>, StoreError> {
        let db = self.db.get()?;
        let mut entries = Vec::new();
        for entry in db.chains.iter() {
            let (key, value) = entry?;
            let hash: ChainHash = key[..]
                .try_into()
                .map_err(|_| StoreError::Corrupt("a chain key of the wrong length".into()))?;
            let (session, node) = codec::decode::<(Uuid, NodeId)>(&value, "chain", INDEX_FORMAT)?;
            entries.push((hash, session, node));
        }
        Ok(entries)
    }

    /// Where a session came from, if not from a client of omnid's own.
    pub fn origin(&self, session: &Uuid) -> Option<String> {
        let value = self.db.get().ok()?.origins.get(session.as_bytes()).ok()??;
        codec::decode(&value, "origin", INDEX_FORMAT).ok()
    }
}

/// The `chains` value naming `node` of `session`.
pub(super) fn value(session: &Uuid, node: NodeId) -> Result<Vec<u8>, StoreError> {
    codec::encode(&(*session, node), INDEX_FORMAT)
}

/// Whether a `chains` value names `session` (one that cannot be read names none).
pub(super) fn names_session(value: &[u8], session: &Uuid) -> bool {
    codec::decode::<(Uuid, NodeId)>(value, "chain", INDEX_FORMAT)
        .is_ok_and(|(named, _)| named == *session)
}

/// An index entry ready to write after the session record: its key and its value.
pub(super) struct Entry {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
}

/// The entry `recorded` adds for a change to `session` (a chain entry names the change's
/// node; a change without one is refused).
pub(super) fn entry(
    recorded: &Recorded,
    session: &Uuid,
    node: Option<&NodeRecord>,
) -> Result<Entry, StoreError> {
    match recorded {
        Recorded::Chain(hash) => {
            let node = node.ok_or_else(|| {
                StoreError::Corrupt("a conversation's chain entry needs its node".into())
            })?;
            Ok(Entry {
                key: hash.to_vec(),
                value: value(session, node.id)?,
            })
        }
    }
}
