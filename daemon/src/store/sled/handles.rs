//! The open database, and opening it again after sled failed a write.
//!
//! sled 0.34 remembers an I/O error (a full disk, a failing device) and refuses every later
//! operation until the database is opened again. So a failure retires the open handles;
//! the next operation, once nothing uses the retired ones any more, opens the directory
//! again (sled recovers its log as after a crash), and the store works without a restart.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use super::StoreError;
use super::disk_sync::DiskSync;
use super::group_sync::GroupSync;
use super::open;

/// One opening of the database: sled, its trees, and the syncing machinery around them.
pub struct Db {
    pub db: sled::Db,
    pub sessions: sled::Tree,
    pub nodes: sled::Tree,
    pub moves: sled::Tree,
    /// Each session's shape (see `links.rs`).
    pub links: sled::Tree,
    /// Where recorded conversations' prefixes end (a hash chain over their contents).
    pub chains: sled::Tree,
    /// Where a session came from, for those not made by a client of omnid's own.
    pub origins: sled::Tree,
    /// Content hashes of imported sessions → the session holding that content.
    pub imports: sled::Tree,
    /// Sessions by last activity (see `activity.rs`).
    pub activity: sled::Tree,
    pub syncer: GroupSync,
}

impl Db {
    /// Opens (or creates) the store in `dir`, waiting up to `patience` for sled's lock; see
    /// `open.rs` for what is checked.
    /// `closed_cleanly`: the store is as a clean shutdown left it, so no crash left stale
    /// entries in the activity index to look for.
    fn open(
        dir: &Path,
        patience: Duration,
        cache_bytes: u64,
        closed_cleanly: bool,
    ) -> Result<Self, StoreError> {
        open::private_dir(dir)?;
        let existed = open::existing_database(dir)?;
        let db = open::sled_with_cache(dir, patience, cache_bytes)?;
        open::check_marker(dir, &db, existed)?;
        let [sessions, nodes, moves] = open::TREES;
        let sessions = db.open_tree(sessions)?;
        let nodes = db.open_tree(nodes)?;
        let moves = db.open_tree(moves)?;
        let links = db.open_tree("links")?;
        let chains = db.open_tree("chains")?;
        let origins = db.open_tree("origins")?;
        let imports = db.open_tree("imports")?;
        let activity = db.open_tree("activity")?;
        super::activity::check(&db, &sessions, &activity, closed_cleanly)?;
        let disk = DiskSync::new(db.clone(), dir).map_err(|e| open::explain_io(dir, &e))?;
        if !existed {
            // The marker (and the new files' names) are durable before anything else.
            disk.sync().map_err(|e| open::explain_io(dir, &e))?;
        }
        Ok(Self {
            db,
            sessions,
            nodes,
            moves,
            links,
            chains,
            origins,
            imports,
            activity,
            syncer: GroupSync::new(move || disk.sync()),
        })
    }
}

/// The current opening, replaced after a failure.
pub struct Reopenable {
    dir: PathBuf,
    current: RwLock<Option<Arc<Db>>>,
    /// The opening that failed, until everyone using it has let go.
    retired: Mutex<Option<Weak<Db>>>,
    /// Syncs run by retired openings.
    retired_syncs: AtomicU64,
    /// sled's page cache, for every opening.
    cache_bytes: u64,
}

impl Reopenable {
    /// Opens the database in `dir`; a lock another process holds is refused at once.
    /// Opens the store in `dir` (see [`Db::open`] for `closed_cleanly`).
    pub fn open(dir: &Path, cache_bytes: u64, closed_cleanly: bool) -> Result<Self, StoreError> {
        Ok(Self {
            dir: dir.to_path_buf(),
            current: RwLock::new(Some(Arc::new(Db::open(
                dir,
                Duration::ZERO,
                cache_bytes,
                closed_cleanly,
            )?))),
            cache_bytes,
            retired: Mutex::new(None),
            retired_syncs: AtomicU64::new(0),
        })
    }

    /// The open database, opening it again first if a failure retired it.
    pub fn get(&self) -> Result<Arc<Db>, StoreError> {
        if let Some(db) = self
            .current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            return Ok(db.clone());
        }
        self.reopen()
    }

    /// Retires `failed` after an I/O error: no new operation uses it.
    pub fn retire(&self, failed: &Arc<Db>) {
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        if current.as_ref().is_some_and(|db| Arc::ptr_eq(db, failed)) {
            *current = None;
            self.retired_syncs
                .fetch_add(failed.syncer.runs(), Ordering::Relaxed);
            *self.retired.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::downgrade(failed));
            tracing::warn!(dir = %self.dir.display(), "the store failed a write; it will be opened again");
        }
    }

    fn reopen(&self) -> Result<Arc<Db>, StoreError> {
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        if let Some(db) = current.as_ref() {
            return Ok(db.clone());
        }
        let mut retired = self.retired.lock().unwrap_or_else(|p| p.into_inner());
        if retired.as_ref().is_some_and(|old| old.strong_count() > 0) {
            return Err(StoreError::Unavailable(
                "the store is being opened again after a failed write; try again in a moment"
                    .into(),
            ));
        }
        // The retired instance is this process's own: its lock goes a moment after it.
        let db = Arc::new(
            Db::open(&self.dir, open::LOCK_PATIENCE, self.cache_bytes, false).map_err(|e| {
                StoreError::Unavailable(format!(
                    "the store failed a write and cannot be opened again yet ({e})"
                ))
            })?,
        );
        tracing::info!(dir = %self.dir.display(), "the store is open again");
        *retired = None;
        *current = Some(db.clone());
        Ok(db)
    }

    /// Syncs run since the store was first opened.
    pub fn sync_runs(&self) -> u64 {
        let now = self.get().map_or(0, |db| db.syncer.runs());
        now + self.retired_syncs.load(Ordering::Relaxed)
    }
}
