//! Opening the sled database safely: the data directory must be a private directory, the
//! database in it must be an Omni store (it carries a marker record written at creation),
//! and nothing that is not one is ever overwritten.
//!
//! sled itself treats a directory whose `db` file is not its own as new and writes over
//! it, and reads a store of another program as an empty one; so the checks below run
//! before sled touches anything, and the marker after.

use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use rustix::fs::FlockOperation;
use serde::{Deserialize, Serialize};

use super::{StoreError, sled_file};
use crate::private;

/// The store's format: the layout of its trees and keys. Records carry their own version
/// bytes on top (see `codec.rs`).
pub const STORE_FORMAT: u32 = 1;

/// The key of the marker record in sled's default tree.
const MARKER_KEY: &[u8] = b"omni-store";

/// The trees every Omni store has had since its first release; a store without a marker
/// that has them was written by an omnid from before markers existed.
pub const TREES: [&str; 3] = ["sessions", "nodes", "moves"];

/// What the marker record says (JSON, so a person can read it with any tool).
#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    store: String,
    format: u32,
    created_by: String,
}

impl Marker {
    fn current() -> Self {
        Self {
            store: "omni".into(),
            format: STORE_FORMAT,
            created_by: format!("omnid {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

fn open_error(dir: &Path, reason: impl Into<String>) -> StoreError {
    StoreError::Open {
        path: dir.to_path_buf(),
        reason: reason.into(),
    }
}

fn not_omni(dir: &Path, why: impl Into<String>) -> StoreError {
    StoreError::NotOmni {
        path: dir.to_path_buf(),
        why: why.into(),
    }
}

/// One clear sentence for an OS error on the data directory, with what to do.
pub fn explain_io(dir: &Path, error: &io::Error) -> StoreError {
    let reason = match error.kind() {
        io::ErrorKind::PermissionDenied => format!(
            "permission denied (omnid runs as uid {}); make the directory its own \
             (`chown -R`), or pass another --data-dir",
            rustix::process::geteuid().as_raw()
        ),
        io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => {
            "a part of the path is a file, not a directory; pass --data-dir with a directory \
             (omnid creates it if it is missing)"
                .to_string()
        }
        io::ErrorKind::StorageFull => "the disk is full; free some space".to_string(),
        io::ErrorKind::ReadOnlyFilesystem => {
            "the file system is read-only; pass a writable --data-dir".to_string()
        }
        _ => error.to_string(),
    };
    open_error(dir, reason)
}

/// Creates the data directory (0700) or makes an existing one private, with every file
/// sled keeps in it readable by its owner only, whatever the umask was when it was written.
pub fn private_dir(dir: &Path) -> Result<(), StoreError> {
    if let Ok(metadata) = fs::metadata(dir)
        && !metadata.is_dir()
    {
        return Err(open_error(
            dir,
            "it is a file, not a directory; pass --data-dir with a directory (omnid creates \
             it if it is missing)",
        ));
    }
    private::create_dir(dir).map_err(|e| explain_io(dir, &e))?;
    private::restrict_tree(dir).map_err(|e| explain_io(dir, &e))
}

/// Refuses, before sled runs, a directory whose `db` file sled would treat as new and
/// overwrite (sled's own `conf` is missing beside it). Returns whether a database exists.
pub fn existing_database(dir: &Path) -> Result<bool, StoreError> {
    let db = dir.join("db");
    if !db.exists() {
        return Ok(false);
    }
    if !db.is_file() || !dir.join("conf").is_file() {
        return Err(not_omni(
            dir,
            "it has a `db` that is not a sled database (its `conf` is missing)",
        ));
    }
    match sled_file::holds_sled_log(dir) {
        Ok(true) => Ok(true),
        Ok(false) => Err(not_omni(
            dir,
            "its `db` is not a sled database (no intact log segment in it)",
        )),
        Err(error) => Err(explain_io(dir, &error)),
    }
}

/// How long a lock held by a sled instance of this process that is going away is waited
/// for: sled lets go of its file only when its background work ends, a moment after the
/// last handle drops. Only a reopen waits; a first open fails at once, since a lock held
/// by another process stays held (the kernel drops it when that process exits).
pub const LOCK_PATIENCE: Duration = Duration::from_secs(2);

/// Opens sled, turning its errors into sentences that say what to do; a lock is waited
/// for up to `patience`.
pub fn sled(dir: &Path, patience: Duration) -> Result<sled::Db, StoreError> {
    sled_with_cache(dir, patience, SLED_CACHE_BYTES)
}

/// [`sled`], keeping at most `cache_bytes` of pages in memory.
pub fn sled_with_cache(
    dir: &Path,
    patience: Duration,
    cache_bytes: u64,
) -> Result<sled::Db, StoreError> {
    let started = Instant::now();
    loop {
        match open_once(dir, cache_bytes) {
            Err(StoreError::Locked(_)) if started.elapsed() < patience => {
                std::thread::sleep(Duration::from_millis(10));
            }
            result => return result,
        }
    }
}

/// Waits until nothing holds the database's lock (after the last handle of an instance
/// dropped), up to `patience`.
pub fn wait_unlocked(dir: &Path, patience: Duration) -> Result<(), StoreError> {
    let file = match std::fs::File::open(dir.join("db")) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(explain_io(dir, &error)),
    };
    let started = Instant::now();
    loop {
        match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {
                let _ = rustix::fs::flock(&file, FlockOperation::Unlock);
                return Ok(());
            }
            Err(_) if started.elapsed() < patience => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(_) => return Err(StoreError::Locked(dir.to_path_buf())),
        }
    }
}

/// The most memory sled keeps for pages it has read or written by default (its own
/// default is 1 GiB, which a long-running daemon would fill with every session ever
/// touched); `store.cache_mb` sets it.
pub const SLED_CACHE_BYTES: u64 = 2 * 1024 * 1024;

fn open_once(dir: &Path, cache_bytes: u64) -> Result<sled::Db, StoreError> {
    sled::Config::new()
        .path(dir)
        .cache_capacity(cache_bytes)
        .open()
        .map_err(|error| match error {
            sled::Error::Io(io) if io.to_string().contains("could not acquire lock") => {
                StoreError::Locked(dir.to_path_buf())
            }
            sled::Error::Io(io) => explain_io(dir, &io),
            sled::Error::Corruption { .. } => not_omni(
                dir,
                "its database cannot be read (it is not a sled database, or it is damaged)",
            ),
            other => open_error(dir, other.to_string()),
        })
}

/// Checks the marker of a database that existed, or writes it into a new one. A database
/// from before markers existed is recognised by its trees and marked.
pub fn check_marker(dir: &Path, db: &sled::Db, existed: bool) -> Result<(), StoreError> {
    match db.get(MARKER_KEY)? {
        Some(bytes) => {
            let marker: Marker = serde_json::from_slice(&bytes)
                .map_err(|_| not_omni(dir, "its store marker cannot be read"))?;
            if marker.store != "omni" {
                return Err(not_omni(dir, "its marker names another kind of store"));
            }
            if marker.format > STORE_FORMAT {
                return Err(open_error(
                    dir,
                    format!(
                        "it was written in store format {} by {}, and this omnid reads format \
                         {STORE_FORMAT}; upgrade omnid",
                        marker.format, marker.created_by
                    ),
                ));
            }
            Ok(())
        }
        None if !existed || is_unmarked_omni_store(db) => {
            if existed {
                tracing::info!(dir = %dir.display(), "an Omni store from before store markers: marking it");
            }
            let marker = serde_json::to_vec(&Marker::current())
                .map_err(|e| StoreError::Corrupt(e.to_string()))?;
            db.insert(MARKER_KEY, marker)?;
            Ok(())
        }
        None => Err(not_omni(
            dir,
            "it holds a database without Omni's store marker",
        )),
    }
}

fn is_unmarked_omni_store(db: &sled::Db) -> bool {
    let names = db.tree_names();
    TREES
        .iter()
        .all(|tree| names.iter().any(|name| name.as_ref() == tree.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_that_is_a_file_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data");
        fs::write(&file, "x").unwrap();
        let err = private_dir(&file).unwrap_err().to_string();
        assert!(err.contains("it is a file, not a directory"), "{err}");
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "x",
            "nothing overwritten"
        );
    }

    #[test]
    fn permission_denied_says_what_to_do_once() {
        let err = explain_io(
            Path::new("/d"),
            &io::Error::from(io::ErrorKind::PermissionDenied),
        );
        let text = err.to_string();
        assert!(
            text.starts_with("cannot open the store in /d: permission denied"),
            "{text}"
        );
        assert!(text.contains("chown -R"), "{text}");
        assert_eq!(text.matches("ermission denied").count(), 1, "{text}");
    }
}
