//! What the store has acknowledged, kept apart from it: the last counts (nodes, moves) of
//! the sessions changed most recently, in the file `acknowledged` beside `db`. sled stops
//! reading its log at the first damaged record and opens what comes before as if it were
//! all, so a store cut short or damaged would otherwise open silently without its last
//! commits. Those are the commits of the sessions changed last, so their counts are enough
//! to notice.
//!
//! The file is written off the commit path: a commit only notes its counts in memory once
//! it is durable, and a thread writes the file (to a temporary file, then renamed, 0600)
//! at most every [`PACE`]. So the file may lag the store but never leads it. Opening
//! compares the store with it (on a copy: see [`check_before_opening`]) and refuses a store
//! that ends before it; a store without the file (one from before it, or a new one) opens
//! as before and gets one.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreError;
use super::formats::decode_session;
use super::open;
use crate::model::SessionRecord;
use crate::private;

/// The file's name in the data directory.
pub const FILE: &str = "acknowledged";

/// Sessions whose counts are kept: the most recently changed.
const KEEP: usize = 256;

/// The least time between two writes of the file.
const PACE: Duration = Duration::from_millis(200);

/// The file's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Counts {
    /// Session id → (nodes, moves) as last acknowledged.
    sessions: HashMap<Uuid, (u64, u64)>,
}

/// Counts noted in memory, each with the order it was noted in.
#[derive(Default)]
struct Noted {
    sessions: HashMap<Uuid, (u64, u64, u64)>,
    next: u64,
}

impl Noted {
    fn note(&mut self, record: &SessionRecord) {
        self.next += 1;
        self.sessions
            .insert(record.id, (record.nodes, record.moves, self.next));
        if self.sessions.len() > 2 * KEEP {
            let mut order: Vec<u64> = self.sessions.values().map(|v| v.2).collect();
            order.sort_unstable();
            let oldest_kept = order[order.len() - KEEP];
            self.sessions.retain(|_, v| v.2 >= oldest_kept);
        }
    }

    fn counts(&self) -> Counts {
        let mut newest: Vec<(&Uuid, &(u64, u64, u64))> = self.sessions.iter().collect();
        newest.sort_unstable_by_key(|(_, v)| std::cmp::Reverse(v.2));
        let sessions = newest
            .into_iter()
            .take(KEEP)
            .map(|(id, v)| (*id, (v.0, v.1)))
            .collect();
        Counts { sessions }
    }
}

/// The acknowledged counts and the thread that writes them down.
pub struct Acknowledged {
    noted: Arc<Mutex<Noted>>,
    wake: Option<mpsc::Sender<()>>,
    writer: Option<JoinHandle<()>>,
}

impl Acknowledged {
    /// Starts keeping `dir`'s file, beginning with what it holds.
    pub fn start(dir: &Path) -> Self {
        let path = dir.join(FILE);
        let mut noted = Noted::default();
        for (id, (nodes, moves)) in read(&path).ok().flatten().unwrap_or_default().sessions {
            noted.next += 1;
            noted.sessions.insert(id, (nodes, moves, 0));
        }
        let noted = Arc::new(Mutex::new(noted));
        let (wake, woken) = mpsc::channel();
        let _ = wake.send(());
        let writer = {
            let noted = noted.clone();
            std::thread::Builder::new()
                .name("omnid-acknowledged".into())
                .spawn(move || write_when_woken(&path, &noted, &woken))
                .ok()
        };
        Self {
            noted,
            wake: Some(wake),
            writer,
        }
    }

    /// Notes a change that is durable; the file follows.
    pub fn note(&self, record: &SessionRecord) {
        if let Ok(mut noted) = self.noted.lock() {
            noted.note(record);
        }
        if let Some(wake) = &self.wake {
            let _ = wake.send(());
        }
    }
}

impl Acknowledged {
    /// Forgets a purged session: the file no longer expects it.
    pub fn forget(&self, id: &Uuid) {
        if let Ok(mut noted) = self.noted.lock() {
            noted.sessions.remove(id);
        }
        if let Some(wake) = &self.wake {
            let _ = wake.send(());
        }
    }
}

impl Drop for Acknowledged {
    /// Writes the file a last time before the store closes.
    fn drop(&mut self) {
        drop(self.wake.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// Writes the file each time a change was noted, at most every [`PACE`], until the store
/// closes (then once more).
fn write_when_woken(path: &Path, noted: &Mutex<Noted>, woken: &mpsc::Receiver<()>) {
    loop {
        let closing = woken.recv().is_err() || drained_to_the_end(woken);
        let counts = match noted.lock() {
            Ok(noted) => noted.counts(),
            Err(_) => return,
        };
        if let Err(error) = write(path, &counts) {
            tracing::warn!(path = %path.display(), %error, "cannot write what the store acknowledged");
        }
        if closing {
            return;
        }
        std::thread::sleep(PACE);
    }
}

/// Takes every wake-up waiting; true if the store has closed.
fn drained_to_the_end(woken: &mpsc::Receiver<()>) -> bool {
    loop {
        match woken.try_recv() {
            Ok(()) => {}
            Err(mpsc::TryRecvError::Empty) => return false,
            Err(mpsc::TryRecvError::Disconnected) => return true,
        }
    }
}

/// Writes the file whole: a temporary file renamed over the old one. Not synced: the file
/// may lag, and one a power cut left unreadable only skips the comparison (with a warning);
/// a sync here would compete with the commits' own.
pub(super) fn write(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    let aside = path.with_extension("new");
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&aside)?;
    file.write_all(&serde_json::to_vec(value)?)?;
    std::fs::rename(&aside, path)
}

/// Takes purged sessions out of the file in `dir`, so the next opening does not miss them
/// (run before that opening's comparison; see `rewrite.rs`).
pub(super) fn forget_in_file(dir: &Path, purged: &[Uuid]) -> std::io::Result<()> {
    let path = dir.join(FILE);
    let Ok(Some(mut counts)) = read(&path) else {
        return Ok(());
    };
    let before = counts.sessions.len();
    counts.sessions.retain(|id, _| !purged.contains(id));
    if counts.sessions.len() == before {
        return Ok(());
    }
    write(&path, &counts)
}

/// The file's counts; `None` when there is no file, or it cannot be read (a directory
/// omnid may not enter is named by the store's ordinary opening); an error when what it
/// holds is not the file's format.
fn read(path: &Path) -> Result<Option<Counts>, String> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| format!("{} cannot be read: {e}", path.display())),
        Err(_) => Ok(None),
    }
}

/// Refuses a store that ends before what the file says it acknowledged, naming what is
/// missing and what to do. sled, opening a log cut short or damaged, writes over its torn
/// end; so the store is compared on a copy of it, and the store itself is opened only once
/// it passed. (The store's opening skips this for a store exactly as a clean shutdown left
/// it: see `clean_close.rs`.) A store another process holds, or one the copy cannot be made of (no room),
/// is left to the ordinary opening (with a warning for the second).
pub fn check_before_opening(dir: &Path) -> Result<(), StoreError> {
    let path = dir.join(FILE);
    let counts = match read(&path) {
        Ok(Some(counts)) if !counts.sessions.is_empty() => counts,
        Ok(_) => return Ok(()),
        Err(reason) => {
            tracing::warn!("{reason}; the store is opened without comparing it");
            return Ok(());
        }
    };
    if open::wait_unlocked(dir, Duration::ZERO).is_err() {
        return Ok(());
    }
    match compare_on_copy(dir, &counts) {
        Ok(missing) if missing.is_empty() => Ok(()),
        Ok(missing) => Err(behind(dir, &path, missing)),
        Err(why) => {
            tracing::warn!(
                sessions = counts.sessions.len(),
                "cannot verify that the store holds the last commits it acknowledged ({why}); \
                 opening it unchecked"
            );
            Ok(())
        }
    }
}

/// What the store lacks of `counts`, read on a copy of it; an error says why the
/// comparison could not be made (no room for the copy, sled failing or panicking on it).
/// A copy sled cannot open at all is left to the store's own opening, which says why.
fn compare_on_copy(dir: &Path, counts: &Counts) -> Result<Vec<String>, String> {
    let copy = copy_of(dir).map_err(|e| format!("cannot copy it: {e}"))?;
    unpanicked(|| {
        let Ok(db) = open::sled(&copy.0, Duration::ZERO) else {
            return Ok(Vec::new());
        };
        let sessions = db.open_tree("sessions").map_err(|e| e.to_string())?;
        Ok(missing(counts, &sessions))
    })
}

/// What `compare` says, or why it could not say it when it panicked (sled panics on some
/// stores it cannot read back).
fn unpanicked(
    compare: impl FnOnce() -> Result<Vec<String>, String>,
) -> Result<Vec<String>, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(compare))
        .unwrap_or_else(|panic| Err(format!("sled failed reading the copy: {}", said(&*panic))))
}

/// What a panic said.
fn said(panic: &(dyn std::any::Any + Send)) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned());
    text.unwrap_or_else(|| "a panic".to_string())
}

/// A private copy of sled's files, removed when dropped.
struct Copy(PathBuf);

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copies sled's files in `dir` to a private directory beside them (one a crash left
/// behind is replaced). sled keeps values over a few KiB apart, one file each under
/// `blobs/`, written once: they are linked into the copy rather than copied when the file
/// system allows.
fn copy_of(dir: &Path) -> std::io::Result<Copy> {
    let copy = Copy(dir.join(".acknowledged-check"));
    if copy.0.exists() {
        std::fs::remove_dir_all(&copy.0)?;
    }
    private::create_dir(&copy.0)?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let sled_file = name == "db" || name == "conf" || name.starts_with("snap.");
        if entry.file_type()?.is_file() && sled_file {
            std::fs::copy(entry.path(), copy.0.join(&*name))?;
        }
    }
    let blobs = dir.join("blobs");
    if blobs.is_dir() {
        let into = copy.0.join("blobs");
        private::create_dir(&into)?;
        for entry in std::fs::read_dir(&blobs)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                let to = into.join(entry.file_name());
                std::fs::hard_link(entry.path(), &to)
                    .or_else(|_| std::fs::copy(entry.path(), &to).map(|_| ()))?;
            }
        }
    }
    Ok(copy)
}

/// What the store lacks of the acknowledged counts.
fn missing(counts: &Counts, sessions: &sled::Tree) -> Vec<String> {
    let mut missing = Vec::new();
    for (id, (nodes, moves)) in &counts.sessions {
        let stored = sessions.get(id.as_bytes()).map_err(StoreError::from);
        match stored.and_then(|value| value.map(|v| decode_session(&v)).transpose()) {
            Ok(None) => missing.push(format!("session {id} is gone")),
            Ok(Some(record)) if record.nodes < *nodes || record.moves < *moves => {
                missing.push(format!(
                    "session {id} has {} of {nodes} nodes and {} of {moves} moves",
                    record.nodes, record.moves
                ))
            }
            // A record that cannot be read is shown as damaged once the daemon runs.
            Ok(Some(_)) | Err(_) => {}
        }
    }
    missing.sort();
    missing
}

fn behind(dir: &Path, file: &Path, missing: Vec<String>) -> StoreError {
    StoreError::Behind {
        db: dir.join("db"),
        file: PathBuf::from(file),
        missing: missing.join("; "),
    }
}

#[cfg(test)]
#[path = "acknowledged_tests.rs"]
mod tests;
