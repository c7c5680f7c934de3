//! What the store takes and gives, whichever backend holds it.

use uuid::Uuid;

use super::{Fence, StoreError};
use crate::model::{MoveRecord, NodeId, NodeRecord, Role, SessionRecord};

/// One atomic change to a session: its new record, and optionally a node, a move and an
/// index entry of a recorded conversation.
pub struct Change<'a> {
    /// The session's record after the change.
    pub session: &'a SessionRecord,
    /// A node to add.
    pub node: Option<&'a NodeRecord>,
    /// A move to append.
    pub mv: Option<&'a MoveRecord>,
    /// An entry of the proxy's indexes that comes with the change, if any.
    pub recorded: Option<Recorded>,
    /// The lease it is made under, if this instance holds the session's (a turn in
    /// flight); without one, a shared store takes and lets go of the lease within the
    /// change's own transaction. The embedded store has no leases.
    pub fence: Option<Fence>,
}

impl<'a> Change<'a> {
    /// A change to the record alone (a new empty session, a rename, an archive).
    pub fn record_only(session: &'a SessionRecord) -> Self {
        Self {
            session,
            node: None,
            mv: None,
            recorded: None,
            fence: None,
        }
    }
}

/// What a conversation recorded through the proxy adds to the indexes
/// beside the session trees (see `chains.rs`), in the same ordered change as its session.
#[derive(Debug, Clone, Copy)]
pub enum Recorded {
    /// The hash of the conversation up to the change's node: written after the record, so
    /// it never points at a node the store does not hold.
    Chain(ChainHash),
}

/// A session record as stored: decoded, or why it cannot be.
#[derive(Debug)]
pub struct StoredSession {
    /// The session's id (its key).
    pub id: Uuid,
    /// The record.
    pub record: Result<SessionRecord, StoreError>,
}

/// A hash of a conversation's contents up to one turn.
pub type ChainHash = [u8; 32];

/// The sha-256 of an imported session's content (see the import handler for what it
/// covers).
pub type ContentHash = [u8; 32];

/// One session to write whole.
pub struct Import<'a> {
    /// Its record, counting exactly `nodes` and `moves`.
    pub session: &'a SessionRecord,
    /// Every node, numbered from 1 in order.
    pub nodes: &'a [NodeRecord],
    /// Every move, numbered from 1 in order.
    pub moves: &'a [MoveRecord],
    /// Where it came from (`import (omni: FILE)`, `gemini proxy (UA)`); none for a session
    /// a client of omnid's own made (one copied from another store).
    pub origin: Option<&'a str>,
    /// An import's content hash.
    pub hash: Option<ContentHash>,
    /// A recorded conversation's chain entries: the hash of the conversation up to each
    /// node.
    pub chains: &'a [(ChainHash, NodeId)],
}

/// One node's place in its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// Its parent (0: the start of the conversation).
    pub parent: NodeId,
    /// Its role.
    pub role: Role,
}

impl Link {
    /// The role's code where a backend keeps it as a number (0 user, 1 model, 2 tool,
    /// 3 summary).
    pub(in crate::store) fn role_code(role: Role) -> u8 {
        match role {
            Role::User => 0,
            Role::Model => 1,
            Role::Tool => 2,
            Role::Summary => 3,
        }
    }

    /// The role a code names (an unknown one reads as a summary, the last kind added).
    pub(in crate::store) fn role_of(code: u8) -> Role {
        match code {
            0 => Role::User,
            1 => Role::Model,
            2 => Role::Tool,
            _ => Role::Summary,
        }
    }
}

/// What a purge removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Purged {
    /// Nodes removed.
    pub nodes: usize,
    /// Moves removed.
    pub moves: usize,
}

/// A diagnostic record as a shared store keeps it, so that every instance reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedDiagnostic {
    /// The error's id.
    pub id: String,
    /// What it is about: a session id, or `proxy`.
    pub subject: String,
    /// When, RFC 3339.
    pub time: String,
    /// The structured record, JSON (secrets redacted).
    pub record: Vec<u8>,
    /// Its `api_errors.log` entry, as written.
    pub entry: String,
}
