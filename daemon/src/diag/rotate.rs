//! Keeping the diagnostic log bounded: when `api_errors.log` would pass its size limit it is
//! renamed to `api_errors-<UTC timestamp>.log` and a new one starts; only the newest
//! archives are kept, and archives and records older than the retention period are pruned.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::files;

/// The live log's name.
pub const LOG_NAME: &str = "api_errors.log";
/// The size the live log never passes (10 MB).
pub const MAX_LOG_BYTES: u64 = 10 * 1000 * 1000;

/// How much history the log directory keeps.
#[derive(Debug, Clone)]
pub struct Retention {
    /// Rotated logs kept at most.
    pub max_archives: usize,
    /// Archives and records older than this are removed.
    pub max_age: Duration,
}

fn compact(time: SystemTime) -> String {
    humantime::format_rfc3339_seconds(time)
        .to_string()
        .replace(['-', ':'], "")
}

/// Rotates the log if appending `incoming` bytes would take it past [`MAX_LOG_BYTES`].
/// Returns the archive's path if it rotated.
pub fn rotate_if_needed(dir: &Path, incoming: u64, now: SystemTime) -> io::Result<Option<PathBuf>> {
    let log = dir.join(LOG_NAME);
    let size = match fs::metadata(&log) {
        Ok(metadata) => metadata.len(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if size == 0 || size + incoming <= MAX_LOG_BYTES {
        return Ok(None);
    }
    let stamp = compact(now);
    let mut archive = dir.join(format!("api_errors-{stamp}.log"));
    let mut n = 1;
    while archive.exists() {
        archive = dir.join(format!("api_errors-{stamp}-{n}.log"));
        n += 1;
    }
    fs::rename(&log, &archive)?;
    files::sync_dir(dir)?;
    Ok(Some(archive))
}

/// Rotated logs, oldest first (their names sort by time).
pub fn archives(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("api_errors-") && n.ends_with(".log"))
            })
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    found.sort();
    Ok(found)
}

fn older_than(path: &Path, cutoff: SystemTime) -> bool {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|modified| modified < cutoff)
}

/// Removes archives beyond the newest `max_archives`, archives older than `max_age`, and
/// record directories (`errors/<YYYY-MM-DD>`) for days older than `max_age`.
pub fn prune(dir: &Path, retention: &Retention, now: SystemTime) -> io::Result<()> {
    let cutoff = now
        .checked_sub(retention.max_age)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let archives = archives(dir)?;
    let excess = archives.len().saturating_sub(retention.max_archives);
    for (i, archive) in archives.iter().enumerate() {
        if i < excess || older_than(archive, cutoff) {
            fs::remove_file(archive)?;
        }
    }
    let cutoff_day = humantime::format_rfc3339_seconds(cutoff).to_string()[..10].to_string();
    let errors = dir.join("errors");
    if let Ok(days) = fs::read_dir(&errors) {
        for day in days.filter_map(Result::ok) {
            let name = day.file_name().to_string_lossy().into_owned();
            if name.len() == 10 && name < cutoff_day {
                fs::remove_dir_all(day.path())?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retention(max_archives: usize, days: u64) -> Retention {
        Retention {
            max_archives,
            max_age: Duration::from_secs(days * 86_400),
        }
    }

    #[test]
    fn the_log_rotates_only_when_it_would_pass_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let log = dir.path().join(LOG_NAME);
        fs::write(&log, vec![b'x'; 9_000_000]).unwrap();
        assert_eq!(rotate_if_needed(dir.path(), 1_000_000, now).unwrap(), None);
        let archive = rotate_if_needed(dir.path(), 1_000_001, now)
            .unwrap()
            .unwrap();
        assert_eq!(
            archive.file_name().unwrap(),
            "api_errors-20270115T080000Z.log"
        );
        assert!(!log.exists());
        fs::write(&log, vec![b'x'; 9_999_999]).unwrap();
        let second = rotate_if_needed(dir.path(), 2, now).unwrap().unwrap();
        assert_eq!(
            second.file_name().unwrap(),
            "api_errors-20270115T080000Z-1.log",
            "names never collide"
        );
    }

    #[test]
    fn pruning_keeps_the_newest_archives_and_recent_records() {
        let dir = tempfile::tempdir().unwrap();
        for stamp in ["20260101T000000Z", "20260102T000000Z", "20260103T000000Z"] {
            fs::write(dir.path().join(format!("api_errors-{stamp}.log")), "x").unwrap();
        }
        let errors = dir.path().join("errors");
        for day in ["2000-01-01", "2999-01-01"] {
            fs::create_dir_all(errors.join(day).join("s")).unwrap();
        }
        prune(dir.path(), &retention(2, 30), SystemTime::now()).unwrap();
        let names: Vec<String> = archives(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "api_errors-20260102T000000Z.log",
                "api_errors-20260103T000000Z.log"
            ]
        );
        assert!(!errors.join("2000-01-01").exists());
        assert!(errors.join("2999-01-01").exists());
    }
}
