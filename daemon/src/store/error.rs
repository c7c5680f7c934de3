//! Why the store failed, in sentences that say what to do.

use std::io;
use std::path::PathBuf;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another process (another omnid) has the database open.
    #[error(
        "the data directory {} is in use by another omnid; stop it or pass a different --data-dir",
        .0.display()
    )]
    Locked(PathBuf),
    /// The data directory cannot be used; the reason says what to do.
    #[error("cannot open the store in {}: {reason}", path.display())]
    Open {
        /// The data directory.
        path: PathBuf,
        /// What is wrong and what to do, in one sentence.
        reason: String,
    },
    /// The data directory holds something that is not an Omni store; nothing was changed.
    #[error(
        "{} is not an Omni store: {why}. Nothing in it was changed. If it is yours, move it \
         aside (or restore it from a backup); to start with an empty store, pass another \
         --data-dir",
        path.display()
    )]
    NotOmni {
        /// The data directory.
        path: PathBuf,
        /// What was found.
        why: String,
    },
    /// A write was refused because the disk is (nearly) full; nothing was written.
    #[error(
        "disk full: {} free in {}, and omnid keeps {} free so that its store never fills up",
        mib(*free),
        dir.display(),
        mib(*reserve)
    )]
    DiskFull {
        /// The data directory.
        dir: PathBuf,
        /// Bytes free.
        free: u64,
        /// Bytes kept free.
        reserve: u64,
    },
    /// The store failed a write and could not be opened again yet.
    #[error("{0}")]
    Unavailable(String),
    /// A read or write failed.
    #[error("store error: {0}")]
    Sled(sled::Error),
    /// A change was applied but could not be made durable (disk full, I/O error).
    #[error("could not flush the store to disk: {0}")]
    Sync(io::Error),
    /// The store ends before commits it acknowledged (see `acknowledged.rs`).
    #[error(
        "{db} ends before commits omnid acknowledged ({missing}): the file was cut short or \
         damaged. Nothing was changed. Restore the data directory from a backup; or, to \
         start with what it still holds (the missing commits stay lost), move {file} aside"
    )]
    Behind {
        /// The database file.
        db: PathBuf,
        /// The file of acknowledged counts.
        file: PathBuf,
        /// What is missing.
        missing: String,
    },
    /// The shared database failed or cannot be reached; `store` names it (host, port and
    /// database, never the password).
    #[error("the store at {store} failed: {message}")]
    Database {
        /// Where the database is: `HOST:PORT/DATABASE`.
        store: String,
        /// What it said, or why it could not be reached.
        message: String,
    },
    /// Another omnid changed the session first (on a shared store): nothing of this change
    /// was written, and this omnid must read the session again.
    #[error(
        "session {session} was changed by another omnid meanwhile, so this change was not \
         written; the session is read again: try again"
    )]
    ChangedElsewhere {
        /// The session.
        session: uuid::Uuid,
    },
    /// Another omnid holds the session's lease: a change of its is in flight there.
    #[error(
        "session {session} is busy on omnid {holder:?}: a turn, move or compaction is under \
         way there. Try again when it is done (if that omnid stopped, its hold runs out \
         within {seconds_left} s)"
    )]
    HeldElsewhere {
        /// The session.
        session: uuid::Uuid,
        /// The instance that holds it (its `instance_name`).
        holder: String,
        /// Seconds until the lease runs out unless it is renewed.
        seconds_left: u64,
    },
    /// This omnid's lease ran out (it was paused or cut off) and another took the session
    /// over: nothing of this change was written.
    #[error(
        "session {session} was taken over by omnid {holder:?} while this omnid could not \
         renew its hold (it was paused or cut off): this change was not written"
    )]
    LeaseLost {
        /// The session.
        session: uuid::Uuid,
        /// The instance that holds it now, or held it last.
        holder: String,
    },
    /// The shared database's schema is newer than this omnid knows; nothing was changed.
    #[error(
        "the store at {store} has schema version {found}, newer than this omnid knows \
         ({known}); upgrade omnid"
    )]
    NewerSchema {
        /// Where the database is.
        store: String,
        /// The version the database holds.
        found: i32,
        /// The newest version this omnid writes.
        known: i32,
    },
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

impl From<sled::Error> for StoreError {
    fn from(error: sled::Error) -> Self {
        StoreError::Sled(error)
    }
}

impl StoreError {
    /// Whether the disk ran full: the guard refused, or sled or a sync met ENOSPC.
    pub fn is_disk_full(&self) -> bool {
        match self {
            StoreError::DiskFull { .. } => true,
            StoreError::Sled(sled::Error::Io(e)) | StoreError::Sync(e) => {
                e.kind() == io::ErrorKind::StorageFull
            }
            _ => false,
        }
    }

    /// Whether sled itself failed, so the open database must be retired.
    pub(super) fn breaks_the_database(&self) -> bool {
        matches!(
            self,
            StoreError::Sled(sled::Error::Io(_)) | StoreError::Sync(_)
        )
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}
