//! The embedded backend: one sled database holding sessions, nodes and move logs.
//!
//! This folder is the only place that knows sled. Trees:
//!
//! | tree       | key                                | value            |
//! |------------|------------------------------------|------------------|
//! | `sessions` | session id (16 bytes)              | [`SessionRecord`] |
//! | `nodes`    | session id ‖ node number (u64 BE)  | [`NodeRecord`]    |
//! | `moves`    | session id ‖ move seq (u64 BE)     | [`MoveRecord`]    |
//! | `links`    | session id ‖ chunk (u64 BE)        | parents and roles |
//! | `chains`   | sha-256 of a conversation to a turn | (session, node) |
//! | `origins`  | session id (16 bytes)              | where it came from |
//! | `imports`  | sha-256 of an imported session's content | its session id |
//! | `activity` | last activity (u64 BE) ‖ session id | nothing (see `activity.rs`) |
//!
//! Big-endian numbers keep each session's nodes and moves in order under its prefix. Every
//! value starts with a format-version byte; sled's default tree holds the store's marker
//! (see `open.rs`). A change (a node, the move that points the head at it, and the session
//! record) is written record last, so a crash never leaves a record that counts what is
//! not there (see [`SledStore::apply`]); [`SledStore::commit`] returns only once it is durable. A write that would leave the disk nearly full is refused before sled sees it
//! (see `space.rs`), and a write sled fails makes the store open itself again (see
//! `handles.rs`), so a full disk never breaks reads and never needs a restart.

mod acknowledged;
mod activity;
mod apart;
mod chains;
mod clean_close;
mod count;
mod disk_sync;
mod group_sync;
mod handles;
mod import;
mod links;
mod open;
mod purge;
mod read;
mod rewrite;
mod sled_file;
mod space;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use uuid::Uuid;

#[cfg(test)]
use super::encoding::legacy;
use super::encoding::{codec, formats};
use formats::{MOVE_FORMAT, NODE_FORMAT, SESSION_FORMAT};
use handles::{Db, Reopenable};
pub use open::SLED_CACHE_BYTES;

use super::health::{Failing, Health};
use super::observe::{self, Observer};
use super::{
    ChainHash, Change, ContentHash, Import, Link, Purged, Recorded, StoreError, StoreOptions,
    StoredSession,
};
use crate::model::NodeRecord;
#[cfg(test)]
use crate::model::{MoveRecord, SessionRecord};

/// The sled database and the durability machinery around it.
pub struct SledStore {
    dir: PathBuf,
    options: StoreOptions,
    db: Reopenable,
    health: Health,
    /// Changes applied since the store was opened.
    commits: AtomicU64,
    /// How many sessions it holds, once counted.
    count: count::SessionCount,
    /// The last counts of the sessions changed most recently, kept apart from the store.
    acknowledged: acknowledged::Acknowledged,
    /// Who hears of durable changes (the search index).
    observers: observe::Observers,
}

fn child_key(session: &Uuid, number: u64) -> [u8; 24] {
    let mut key = [0u8; 24];
    key[..16].copy_from_slice(session.as_bytes());
    key[16..].copy_from_slice(&number.to_be_bytes());
    key
}

fn key_number(key: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(key.get(16..24)?.try_into().ok()?))
}

impl SledStore {
    /// Opens (or creates) the store in `dir` with the default options.
    #[cfg(test)]
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        Self::open_with(dir, StoreOptions::default())
    }

    /// Opens (or creates) the store in `dir`. [`SledStore::commit`] and [`SledStore::sync`] need a
    /// tokio runtime (the sync runs on its blocking pool).
    pub fn open_with(dir: &Path, options: StoreOptions) -> Result<Self, StoreError> {
        rewrite::if_pending(dir)?;
        let closed = clean_close::holds(dir);
        let closed_cleanly = closed.is_some();
        if closed_cleanly {
            tracing::debug!(
                "the store is as its last clean shutdown left it; not compared with what it acknowledged"
            );
        } else {
            acknowledged::check_before_opening(dir)?;
        }
        let db = Reopenable::open(dir, options.cache_bytes, closed_cleanly)?;
        clean_close::clear(dir);
        Ok(Self {
            dir: dir.to_path_buf(),
            options,
            db,
            health: Health::default(),
            commits: AtomicU64::new(0),
            count: count::SessionCount::known(closed.and_then(|closed| closed.sessions)),
            acknowledged: acknowledged::Acknowledged::start(dir),
            observers: observe::Observers::default(),
        })
    }

    /// Closes the store, returning once its directory may be opened again (sled lets go of
    /// its lock a moment after the last handle drops).
    pub fn close(self) -> Result<(), StoreError> {
        let dir = self.dir.clone();
        drop(self);
        open::wait_unlocked(&dir, open::LOCK_PATIENCE)
    }

    /// Notes a failure (and retires the database if sled failed); passes it on.
    fn failed(&self, db: &Arc<Db>, error: StoreError) -> StoreError {
        self.health.failed(error.to_string(), false);
        if error.breaks_the_database() {
            self.db.retire(db);
        }
        error
    }

    /// Stamps the store as shut down cleanly, once its last change is durable and nothing
    /// writes any more: the next start need not compare it with what it acknowledged.
    pub fn mark_closed_cleanly(&self) {
        clean_close::mark(&self.dir, *self.count.lock());
    }

    /// Applies a change (see [`SledStore::apply`]) and waits until it is durable.
    pub async fn commit(&self, change: &Change<'_>) -> Result<(), StoreError> {
        self.apply(change)?;
        self.made_durable(change).await
    }

    /// Waits until an applied change is durable, then notes it as acknowledged.
    async fn made_durable(&self, change: &Change<'_>) -> Result<(), StoreError> {
        self.sync().await?;
        self.acknowledged.note(change.session);
        Ok(())
    }

    /// Applies a change without waiting for durability. Use [`SledStore::commit`] unless many
    /// changes are followed by one [`SledStore::sync`].
    ///
    /// The node, the move and the node's index entry are written first and the session
    /// record last, in this order: sled recovers a prefix of its log after a crash, so the
    /// record (which counts the nodes and moves) never names a node or move that is not
    /// there. What a crash cut short before the record is invisible (readers go by the
    /// record's counts) and is written over by the next change. Plain writes, not a sled
    /// transaction: a transaction costs sled about ten times the time and three times the
    /// space of the same writes.
    pub fn apply(&self, change: &Change<'_>) -> Result<(), StoreError> {
        let id = change.session.id;
        let session_value = codec::encode(change.session, SESSION_FORMAT)?;
        let node = change
            .node
            .map(|n| Ok::<_, StoreError>((child_key(&id, n.id), self.node_value(&id, n)?)))
            .transpose()?;
        let mv = change
            .mv
            .map(|m| Ok::<_, StoreError>((child_key(&id, m.seq), codec::encode(m, MOVE_FORMAT)?)))
            .transpose()?;
        let index = change
            .recorded
            .map(|entry| chains::entry(&entry, &id, change.node))
            .transpose()?;
        let size = session_value.len()
            + node.as_ref().map_or(0, |n| n.1.len())
            + mv.as_ref().map_or(0, |m| m.1.len())
            + index.as_ref().map_or(0, |i| i.value.len());
        self.make_room(size)?;
        let db = self.db.get()?;
        let link = match change.node {
            Some(node) => links::with_node(&db, &id, node)?,
            None => None,
        };
        let was_active =
            activity::stored_activity(&db.sessions, &id).map_err(|e| self.failed(&db, e))?;
        let active = change.session.updated_at_ms;
        let write = || -> Result<(), sled::Error> {
            if let Some((key, value)) = &node {
                db.nodes.insert(&key[..], &value[..])?;
            }
            if let Some((key, value)) = link {
                db.links.insert(&key[..], value)?;
            }
            if let Some((key, value)) = &mv {
                db.moves.insert(&key[..], &value[..])?;
            }
            db.activity
                .insert(activity::key(active, &id), sled::IVec::default())?;
            db.sessions.insert(&id.as_bytes()[..], session_value)?;
            if let Some(old) = was_active.filter(|old| *old != active) {
                db.activity.remove(activity::key(old, &id))?;
            }
            if let Some(chain) = &index {
                db.chains.insert(&chain.key[..], &chain.value[..])?;
            }
            Ok(())
        };
        write().map_err(|e| self.failed(&db, StoreError::Sled(e)))?;
        let gained = change.node.map(std::slice::from_ref).unwrap_or_default();
        self.observers.applied(id, gained);
        self.commits.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// What the nodes tree holds for `node`: its encoding, or (a big one) a pointer to
    /// where it was written apart, durably (see `apart.rs`).
    fn node_value(&self, session: &Uuid, node: &NodeRecord) -> Result<Vec<u8>, StoreError> {
        let encoded = codec::encode(node, NODE_FORMAT)?;
        if encoded.len() > apart::APART_OVER {
            self.make_room(encoded.len())?;
        }
        apart::stored(&self.dir, session, node.id, encoded)
    }

    /// Refuses a write of `size` bytes that would leave less than the reserve free (and
    /// says the store is failing for a full disk until there is room again).
    fn make_room(&self, size: usize) -> Result<(), StoreError> {
        let Err(free) = space::check(&self.dir, self.options.min_free_bytes, size as u64) else {
            return Ok(());
        };
        let error = StoreError::DiskFull {
            dir: self.dir.clone(),
            free,
            reserve: self.options.min_free_bytes,
        };
        self.health.failed(error.to_string(), true);
        Err(error)
    }

    /// How many changes have been applied since the store was opened.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// Waits until every change applied so far is durable (shared with concurrent callers).
    pub async fn sync(&self) -> Result<(), StoreError> {
        let db = self.db.get()?;
        let changed = self.observers.before_sync();
        let synced = db.syncer.sync().await;
        self.observers.after_sync(changed, synced.is_ok()).await;
        match synced {
            Ok(()) => {
                self.health.recovered();
                Ok(())
            }
            Err(error) => Err(self.failed(&db, StoreError::Sync(error))),
        }
    }

    /// Sets the one observer told which sessions changed, once their changes are durable
    /// (see `observe.rs`). Returns false (and keeps the first) when one is already set.
    pub fn observe(&self, observer: Observer) -> bool {
        self.observers.set(observer).is_ok()
    }

    /// The data directory the store lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many syncs have run since the store was opened.
    pub fn sync_runs(&self) -> u64 {
        self.db.sync_runs()
    }

    /// Whether writes fail now, since when and why. A refusal for lack of space ends as
    /// soon as there is space again.
    pub fn health(&self) -> Option<Failing> {
        let failing = self.health.get()?;
        let headroom = self.options.min_free_bytes.saturating_add(space::HEADROOM);
        if failing.disk_full && space::check(&self.dir, headroom, 0).is_ok() {
            self.health.recovered();
            return None;
        }
        Some(failing)
    }

    /// Bytes the database occupies on disk.
    pub fn size_on_disk(&self) -> u64 {
        self.db
            .get()
            .ok()
            .and_then(|db| db.db.size_on_disk().ok())
            .unwrap_or(0)
    }
}

#[cfg(test)]
impl SledStore {
    /// Overwrites a session's stored record with `bytes`, as damage would (for tests
    /// above the store that need a record it cannot read).
    pub fn damage_record(&self, id: &Uuid, bytes: &[u8]) {
        let db = self.db.get().expect("the store is open");
        db.sessions
            .insert(id.as_bytes(), bytes)
            .expect("the record is written");
    }
}

#[cfg(test)]
mod activity_tests;
#[cfg(test)]
mod apart_tests;
#[cfg(test)]
mod index_tests;
#[cfg(test)]
mod tests;
