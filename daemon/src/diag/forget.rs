//! Forgetting a purged session's diagnostics: its JSON records (`errors/DAY/SESSION/`) and
//! its entries in the live `api_errors.log` (rotated archives keep theirs until retention
//! prunes them).

use std::fs;

use super::Diagnostics;
use super::files::write_atomically;
use super::query::entries;

impl Diagnostics {
    /// Removes every record and live log entry of `session`; returns how many records.
    pub fn forget_session(&self, session: &str) -> std::io::Result<u64> {
        let _one_writer = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        let mut records = 0;
        if let Ok(days) = fs::read_dir(self.dir.join("errors")) {
            for day in days.filter_map(Result::ok) {
                let dir = day.path().join(session);
                if let Ok(files) = fs::read_dir(&dir) {
                    records += files.count() as u64;
                    fs::remove_dir_all(&dir)?;
                }
            }
        }
        let log = self.log_path();
        if let Ok(text) = fs::read_to_string(&log) {
            let named = format!(", session {session}, ");
            let kept: String = entries(&text)
                .into_iter()
                .filter(|entry| !entry.lines().next().is_some_and(|l| l.contains(&named)))
                .collect();
            if kept.len() != text.len() {
                write_atomically(&log, kept.as_bytes())?;
            }
        }
        Ok(records)
    }
}
