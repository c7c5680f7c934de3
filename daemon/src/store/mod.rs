//! The store: one sled database holding sessions, nodes and move logs.
//!
//! This module is the only place that knows sled. Trees:
//!
//! | tree       | key                                | value            |
//! |------------|------------------------------------|------------------|
//! | `sessions` | session id (16 bytes)              | [`SessionRecord`] |
//! | `nodes`    | session id ‖ node number (u64 BE)  | [`NodeRecord`]    |
//! | `moves`    | session id ‖ move seq (u64 BE)     | [`MoveRecord`]    |
//!
//! Big-endian numbers keep each session's nodes and moves in order under its prefix. Every
//! value starts with a format-version byte. A change (a node, the move that points the head
//! at it, and the session record) is written in one transaction; [`Store::commit`] returns
//! only once it is durable.

mod codec;
mod disk_sync;
mod group_sync;
mod legacy;

use std::io;
use std::path::{Path, PathBuf};

use sled::Transactional;
use sled::transaction::TransactionError;
use uuid::Uuid;

use disk_sync::DiskSync;
use group_sync::GroupSync;

use crate::session::record::{MoveRecord, NodeRecord, SessionRecord};
use crate::session::tree::NodeId;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another process (another omnid) has the database open.
    #[error(
        "the data directory {} is in use by another omnid; stop it or pass a different --data-dir",
        .0.display()
    )]
    Locked(PathBuf),
    /// The database could not be opened.
    #[error("cannot open the store in {}: {source}", path.display())]
    Open {
        /// The data directory.
        path: PathBuf,
        /// What sled said.
        source: sled::Error,
    },
    /// A read or write failed.
    #[error("store error: {0}")]
    Sled(#[from] sled::Error),
    /// A change was applied but could not be made durable (disk full, I/O error).
    #[error("could not flush the store to disk: {0}")]
    Sync(io::Error),
    /// A value could not be decoded.
    #[error("corrupt store record: {0}")]
    Corrupt(String),
    /// A value was written by a newer (or unknown) omnid.
    #[error(
        "{what} was written in store format version {version}, which this omnid \
         (format {current}) cannot read; upgrade omnid"
    )]
    UnknownFormat {
        /// What was being read.
        what: String,
        /// The version byte found.
        version: u8,
        /// The newest version this build writes.
        current: u8,
    },
}

/// Format of session records: 2 added the failure count and suspension, 3 tools and
/// recovery. Older ones are migrated when read.
const SESSION_FORMAT: u8 = 3;
/// Format of nodes.
const NODE_FORMAT: u8 = 1;
/// Format of moves: 2 added the recovery move kinds (a format-1 move reads unchanged).
const MOVE_FORMAT: u8 = 2;

fn decode_session(bytes: &[u8]) -> Result<SessionRecord, StoreError> {
    const WHAT: &str = "session record";
    match codec::split(bytes, WHAT)? {
        (SESSION_FORMAT, body) => codec::body(body, WHAT),
        (2, body) => Ok(codec::body::<legacy::SessionRecordV2>(body, WHAT)?.into()),
        (1, body) => {
            let v2: legacy::SessionRecordV2 =
                codec::body::<legacy::SessionRecordV1>(body, WHAT)?.into();
            Ok(v2.into())
        }
        (found, _) => Err(codec::unknown(WHAT, found, SESSION_FORMAT)),
    }
}

fn decode_move(bytes: &[u8]) -> Result<MoveRecord, StoreError> {
    const WHAT: &str = "move";
    match codec::split(bytes, WHAT)? {
        (MOVE_FORMAT | 1, body) => codec::body(body, WHAT),
        (found, _) => Err(codec::unknown(WHAT, found, MOVE_FORMAT)),
    }
}

/// One atomic change to a session: its new record, and optionally a node and a move.
pub struct Change<'a> {
    /// The session's record after the change.
    pub session: &'a SessionRecord,
    /// A node to add.
    pub node: Option<&'a NodeRecord>,
    /// A move to append.
    pub mv: Option<&'a MoveRecord>,
}

/// The sled database and the durability machinery around it.
pub struct Store {
    db: sled::Db,
    sessions: sled::Tree,
    nodes: sled::Tree,
    moves: sled::Tree,
    syncer: GroupSync,
}

fn child_key(session: &Uuid, number: u64) -> [u8; 24] {
    let mut key = [0u8; 24];
    key[..16].copy_from_slice(session.as_bytes());
    key[16..].copy_from_slice(&number.to_be_bytes());
    key
}

impl Store {
    /// Opens (or creates) the store in `dir`. [`Store::commit`] and [`Store::sync`] need a
    /// tokio runtime (the sync runs on its blocking pool).
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Open {
            path: dir.to_path_buf(),
            source: e.into(),
        })?;
        let db = sled::Config::new().path(dir).open().map_err(|source| {
            if source.to_string().contains("could not acquire lock") {
                StoreError::Locked(dir.to_path_buf())
            } else {
                StoreError::Open {
                    path: dir.to_path_buf(),
                    source,
                }
            }
        })?;
        let sessions = db.open_tree("sessions")?;
        let nodes = db.open_tree("nodes")?;
        let moves = db.open_tree("moves")?;
        let disk = DiskSync::new(db.clone(), dir).map_err(StoreError::Sync)?;
        let syncer = GroupSync::new(move || disk.sync());
        Ok(Self {
            db,
            sessions,
            nodes,
            moves,
            syncer,
        })
    }

    /// Applies a change in one transaction and waits until it is durable.
    pub async fn commit(&self, change: &Change<'_>) -> Result<(), StoreError> {
        self.apply(change)?;
        self.sync().await
    }

    /// Applies a change in one transaction without waiting for durability. Use
    /// [`Store::commit`] unless many changes are followed by one [`Store::sync`].
    pub fn apply(&self, change: &Change<'_>) -> Result<(), StoreError> {
        let id = change.session.id;
        let session_value = codec::encode(change.session, SESSION_FORMAT)?;
        let node = change
            .node
            .map(|n| Ok::<_, StoreError>((child_key(&id, n.id), codec::encode(n, NODE_FORMAT)?)))
            .transpose()?;
        let mv = change
            .mv
            .map(|m| Ok::<_, StoreError>((child_key(&id, m.seq), codec::encode(m, MOVE_FORMAT)?)))
            .transpose()?;
        (&self.sessions, &self.nodes, &self.moves)
            .transaction(|(sessions, nodes, moves)| {
                sessions.insert(&id.as_bytes()[..], &session_value[..])?;
                if let Some((key, value)) = &node {
                    nodes.insert(&key[..], &value[..])?;
                }
                if let Some((key, value)) = &mv {
                    moves.insert(&key[..], &value[..])?;
                }
                Ok(())
            })
            .map_err(|e: TransactionError<()>| match e {
                TransactionError::Storage(e) => StoreError::Sled(e),
                TransactionError::Abort(()) => StoreError::Corrupt("transaction aborted".into()),
            })
    }

    /// Waits until every change applied so far is durable (shared with concurrent callers).
    pub async fn sync(&self) -> Result<(), StoreError> {
        self.syncer.sync().await.map_err(StoreError::Sync)
    }

    /// How many syncs have run since the store was opened.
    pub fn sync_runs(&self) -> u64 {
        self.syncer.runs()
    }

    /// A session's record.
    pub fn session(&self, id: &Uuid) -> Result<Option<SessionRecord>, StoreError> {
        self.sessions
            .get(id.as_bytes())?
            .map(|v| decode_session(&v))
            .transpose()
    }

    /// Every session's record, in key order.
    pub fn sessions(&self) -> Result<Vec<SessionRecord>, StoreError> {
        self.sessions
            .iter()
            .values()
            .map(|v| decode_session(&v?))
            .collect()
    }

    /// How many sessions exist.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Every node of a session, in creation order.
    pub fn nodes(&self, session: &Uuid) -> Result<Vec<NodeRecord>, StoreError> {
        self.nodes
            .scan_prefix(session.as_bytes())
            .values()
            .map(|v| codec::decode(&v?, "node", NODE_FORMAT))
            .collect()
    }

    /// One node of a session; a missing node is corruption (the tree said it exists).
    pub fn node(&self, session: &Uuid, id: NodeId) -> Result<NodeRecord, StoreError> {
        match self.nodes.get(child_key(session, id))? {
            Some(value) => codec::decode(&value, "node", NODE_FORMAT),
            None => Err(StoreError::Corrupt(format!(
                "node {id} of session {session} is missing"
            ))),
        }
    }

    /// One move of a session's log.
    pub fn move_record(&self, session: &Uuid, seq: u64) -> Result<Option<MoveRecord>, StoreError> {
        self.moves
            .get(child_key(session, seq))?
            .map(|v| decode_move(&v))
            .transpose()
    }

    /// Bytes the database occupies on disk.
    pub fn size_on_disk(&self) -> u64 {
        self.db.size_on_disk().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests;
