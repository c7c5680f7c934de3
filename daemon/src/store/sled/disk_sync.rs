//! Making sled's writes survive a power cut, not only a crash.
//!
//! On Linux, sled 0.34's `flush()` writes its buffers and issues `sync_file_range`, which
//! survives `kill -9` (the data is in the page cache) but does not force it to the device;
//! its real `fsync` runs every 500 ms in the background. After each flush we therefore
//! `fdatasync` the database file ourselves. Values too large for a log segment (over about
//! 128 KiB) live in files under `blobs/`, which sled never fsyncs: we sync every blob file
//! we have not synced before, and the directory that names them.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Flushes a sled database and forces its files to stable storage.
pub struct DiskSync {
    db: sled::Db,
    db_file: File,
    blobs_dir: PathBuf,
    synced_blobs: Mutex<HashSet<OsString>>,
}

impl DiskSync {
    /// Prepares syncing for the database stored in `dir`.
    pub fn new(db: sled::Db, dir: &Path) -> io::Result<Self> {
        let db_file = File::open(dir.join("db"))?;
        // The directory entries of sled's files must be durable too.
        File::open(dir)?.sync_all()?;
        Ok(Self {
            db,
            db_file,
            blobs_dir: dir.join("blobs"),
            synced_blobs: Mutex::new(HashSet::new()),
        })
    }

    /// Makes everything written to the database so far durable.
    pub fn sync(&self) -> io::Result<()> {
        self.db.flush().map_err(io::Error::other)?;
        self.db_file.sync_data()?;
        self.sync_new_blobs()
    }

    fn sync_new_blobs(&self) -> io::Result<()> {
        let entries = match std::fs::read_dir(&self.blobs_dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut synced = self
            .synced_blobs
            .lock()
            .map_err(|_| io::Error::other("blob sync state poisoned"))?;
        let mut any_new = false;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            if synced.contains(&name) {
                continue;
            }
            match File::open(entry.path()) {
                Ok(file) => file.sync_data()?,
                // sled removed a blob that was rewritten in the meantime.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            }
            synced.insert(name);
            any_new = true;
        }
        if any_new {
            File::open(&self.blobs_dir)?.sync_all()?;
        }
        Ok(())
    }
}
