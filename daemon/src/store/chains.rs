//! Two small indexes beside the session trees. `chains`: the hash of a conversation's
//! contents up to a turn → the session and node where that turn is recorded, so a request
//! that continues (or rewinds) a recorded conversation finds its place with one lookup per
//! candidate prefix, whatever the history's length. `origins`: where a session came from,
//! for sessions recorded from the Gemini-compatible proxy. Values carry a format byte.

use uuid::Uuid;

use super::{Store, StoreError, codec};
use crate::model::NodeId;

/// A hash of a conversation's contents up to one turn.
pub type ChainHash = [u8; 32];

/// Format of both indexes' values.
const INDEX_FORMAT: u8 = 1;

impl Store {
    /// The session and node where the conversation `hash` names is recorded, if it is.
    pub fn chain(&self, hash: &ChainHash) -> Result<Option<(Uuid, NodeId)>, StoreError> {
        let Some(value) = self.db.get()?.chains.get(hash)? else {
            return Ok(None);
        };
        codec::decode::<(Uuid, NodeId)>(&value, "chain", INDEX_FORMAT).map(Some)
    }

    /// Remembers where conversations end; durable with the next sync.
    pub fn add_chains(&self, entries: &[(ChainHash, Uuid, NodeId)]) -> Result<(), StoreError> {
        let db = self.db.get()?;
        for (hash, session, node) in entries {
            let value = codec::encode(&(*session, *node), INDEX_FORMAT)?;
            db.chains.insert(hash, value)?;
        }
        Ok(())
    }

    /// Remembers where a session came from (`proxy`, with the client's user agent).
    pub fn set_origin(&self, session: &Uuid, origin: &str) -> Result<(), StoreError> {
        let value = codec::encode(&origin.to_string(), INDEX_FORMAT)?;
        self.db.get()?.origins.insert(session.as_bytes(), value)?;
        Ok(())
    }

    /// Where a session came from, if not from a client of omnid's own.
    pub fn origin(&self, session: &Uuid) -> Option<String> {
        let value = self.db.get().ok()?.origins.get(session.as_bytes()).ok()??;
        codec::decode(&value, "origin", INDEX_FORMAT).ok()
    }
}
