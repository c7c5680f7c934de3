//! A stamp that the store was shut down cleanly. Once the daemon's last sync is done, `db`
//! is given a modification time of its own choosing (a second in the past, with random
//! nanoseconds) and the stamp records it with the size. A start that finds `db` exactly so
//! need not compare it with what it acknowledged on a copy (`acknowledged.rs`), which
//! costs a read and a write of the whole store: any write since would have set the time to
//! the clock's. The stamp is taken (removed) when the store opens, so a crash never leaves
//! one behind for a later start to trust. It also keeps how many sessions the store held,
//! when they were counted: a start that trusts the stamp need not count them again by
//! reading every record (about 0.5 s at 100,000 sessions, before omnid could say it is
//! ready: `first_answer_ms_100k_sessions`).

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::acknowledged;

/// The stamp's name in the data directory.
const FILE: &str = "closed-cleanly";

/// What `db` looked like when the store was shut down, and how many sessions it held.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    size: u64,
    modified_ns: u128,
    /// Absent from stamps written before it was kept, and when nobody counted.
    #[serde(default)]
    sessions: Option<usize>,
}

impl Stamp {
    /// Whether `db` looks now exactly as it did when `self` was taken.
    fn same_db(&self, now: &Stamp) -> bool {
        (self.size, self.modified_ns) == (now.size, now.modified_ns)
    }
}

fn stamp_of(dir: &Path) -> std::io::Result<Stamp> {
    let metadata = std::fs::metadata(dir.join("db"))?;
    let modified = metadata.modified()?.duration_since(UNIX_EPOCH);
    Ok(Stamp {
        size: metadata.len(),
        modified_ns: modified.map_or(0, |since| since.as_nanos()),
        sessions: None,
    })
}

/// Gives `db` a modification time no write can produce: a second ago, with random
/// nanoseconds.
fn set_own_time(dir: &Path) -> std::io::Result<()> {
    let past = SystemTime::now() - Duration::from_secs(1);
    let seconds = past
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let own = UNIX_EPOCH + Duration::new(seconds, fastrand::u32(1..1_000_000_000));
    std::fs::File::options()
        .write(true)
        .open(dir.join("db"))?
        .set_modified(own)
}

/// Stamps the store in `dir` as shut down cleanly (after its last sync), holding
/// `sessions` sessions when they were counted.
pub fn mark(dir: &Path, sessions: Option<usize>) {
    let written = set_own_time(dir)
        .and_then(|()| stamp_of(dir))
        .and_then(|stamp| {
            let stamp = Stamp { sessions, ..stamp };
            acknowledged::write(&dir.join(FILE), &stamp)
        });
    if let Err(error) = written {
        tracing::warn!(%error, "cannot note the clean shutdown; the next start compares the store on a copy");
    }
}

/// What a clean shutdown left that a start may trust.
#[derive(Debug, PartialEq, Eq)]
pub struct Closed {
    /// How many sessions the store held, if they were counted.
    pub sessions: Option<usize>,
}

/// What the stamp in `dir` says, if there is one and `db` is still exactly as it says. The
/// stamp stays until [`clear`]: a store refused after this is left exactly as it was found.
pub fn holds(dir: &Path) -> Option<Closed> {
    let bytes = std::fs::read(dir.join(FILE)).ok()?;
    let stamped: Stamp = serde_json::from_slice(&bytes).ok()?;
    let now = stamp_of(dir).ok()?;
    stamped.same_db(&now).then_some(Closed {
        sessions: stamped.sessions,
    })
}

/// Removes the stamp once the store is open, before anything is written to it: a crash
/// from then on never leaves one behind for a later start to trust.
pub fn clear(dir: &Path) {
    match std::fs::remove_file(dir.join(FILE)) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            tracing::warn!(%error, "cannot remove the stamp of the last clean shutdown");
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_trusted_only_while_db_is_unchanged_and_until_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db");
        std::fs::write(&db, b"sled log").unwrap();
        assert_eq!(holds(dir.path()), None, "no stamp: compare");
        mark(dir.path(), Some(7));
        let closed = Closed { sessions: Some(7) };
        assert_eq!(holds(dir.path()).as_ref(), Some(&closed), "unchanged since");
        assert_eq!(holds(dir.path()), Some(closed), "looking leaves the stamp");
        clear(dir.path());
        assert_eq!(
            holds(dir.path()),
            None,
            "cleared once open: a crash leaves none"
        );
        mark(dir.path(), None);
        assert_eq!(holds(dir.path()), Some(Closed { sessions: None }));
        std::fs::write(&db, b"sled lug").unwrap();
        assert_eq!(
            holds(dir.path()),
            None,
            "a db rewritten since, same size: compare"
        );
    }
}
