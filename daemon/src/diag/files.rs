//! Durable file writes for diagnostics: appends that are synced, files that appear whole
//! (written aside, synced, renamed), and directories whose entries are synced.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Syncs a directory, so the names of files created or renamed in it are durable.
pub fn sync_dir(path: &Path) -> io::Result<()> {
    File::open(path)?.sync_all()
}

/// Appends `text` to a file (created 0600) and syncs it.
pub fn append_synced(path: &Path, text: &str) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())?;
    file.sync_data()
}

/// Writes a whole file atomically and durably: to a temporary name, synced, renamed into
/// place, and the directory synced.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("a file path without a directory"))?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("a file path without a name"))?;
    let temporary = dir.join(format!(".{}.tmp", name.to_string_lossy()));
    {
        let mut file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .mode(0o600)
            .open(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    fs::rename(&temporary, path)?;
    sync_dir(dir)
}
