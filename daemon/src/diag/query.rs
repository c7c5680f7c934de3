//! Reading the records back: list, find, and the self-contained export bundle.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::entry::ErrorRecord;
use super::{Diagnostics, Policy, rotate};

/// Everything a bug report needs, in one JSON file.
#[derive(Debug, Serialize)]
pub struct Bundle {
    /// What this file is.
    pub bundle: &'static str,
    /// When it was made, RFC 3339 UTC.
    pub created_at: String,
    /// The daemon's version and configuration (secrets redacted).
    pub daemon: Value,
    /// The session it is about, if any.
    pub session: Option<String>,
    /// The structured records.
    pub errors: Vec<ErrorRecord>,
    /// The matching `api_errors.log` entries, as written.
    pub log_entries: Vec<String>,
    /// The session's transcript, as clients see it.
    pub transcript: Option<Value>,
}

fn record_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(days) = fs::read_dir(dir.join("errors")) else {
        return found;
    };
    for day in days.filter_map(Result::ok) {
        let Ok(sessions) = fs::read_dir(day.path()) else {
            continue;
        };
        for session in sessions.filter_map(Result::ok) {
            let Ok(records) = fs::read_dir(session.path()) else {
                continue;
            };
            found.extend(
                records
                    .filter_map(Result::ok)
                    .map(|r| r.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "json")),
            );
        }
    }
    found
}

fn read_record(path: &Path) -> Option<ErrorRecord> {
    let text = fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Splits a log into its entries (each starts with a `[time] ERROR: error <id>` line).
pub(super) fn entries(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = text
        .match_indices("] ERROR: error ")
        .filter_map(|(at, _)| text[..at].rfind('\n').map_or(Some(0), |nl| Some(nl + 1)))
        .collect();
    starts.dedup();
    starts
        .iter()
        .enumerate()
        .map(|(i, &start)| &text[start..starts.get(i + 1).copied().unwrap_or(text.len())])
        .collect()
}

impl Diagnostics {
    /// Every record in the log directory, newest first; only one session's if given.
    pub(super) fn local_records(&self, session: Option<&str>) -> Vec<ErrorRecord> {
        let mut records: Vec<ErrorRecord> = record_files(&self.dir)
            .iter()
            .filter(|p| {
                session.is_none_or(|s| p.parent().and_then(Path::file_name).is_some_and(|n| n == s))
            })
            .filter_map(|p| read_record(p))
            .collect();
        records.sort_by(|a, b| b.time.cmp(&a.time).then(b.id.cmp(&a.id)));
        records
    }

    /// One record in the log directory by id (or a unique prefix of one).
    pub(super) fn local_find(&self, id: &str) -> Result<ErrorRecord, String> {
        let matches: Vec<PathBuf> = record_files(&self.dir)
            .into_iter()
            .filter(|p| {
                p.file_stem()
                    .is_some_and(|s| s.to_string_lossy().starts_with(id))
            })
            .collect();
        match matches.as_slice() {
            [one] => {
                read_record(one).ok_or_else(|| format!("the record of error {id} cannot be read"))
            }
            [] => Err(format!(
                "no recorded error matches '{id}'; `omnictl logs list` shows them"
            )),
            many => Err(format!(
                "'{id}' matches {} recorded errors; give more of the id",
                many.len()
            )),
        }
    }

    /// The log entries (from the live log and its archives) of the given errors.
    pub(super) fn entries_of(&self, ids: &[String]) -> Vec<String> {
        let mut logs = rotate::archives(&self.dir).unwrap_or_default();
        logs.push(self.log_path());
        logs.iter()
            .filter_map(|log| fs::read_to_string(log).ok())
            .flat_map(|text| {
                entries(&text)
                    .into_iter()
                    .filter(|e| {
                        ids.iter()
                            .any(|id| e.contains(&format!("ERROR: error {id},")))
                    })
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Assembles a bundle of `records` and a transcript (secrets redacted): the JSON text,
    /// and how many records it holds. The daemon never writes it to a file: it travels to
    /// the client, which writes it with its user's own permissions.
    /// `log_entries`: the records' log entries ([`Diagnostics::log_entries`]).
    pub fn bundle(
        &self,
        session: Option<String>,
        records: Vec<ErrorRecord>,
        log_entries: Vec<String>,
        transcript: Option<Value>,
        policy: &Policy,
    ) -> io::Result<(Vec<u8>, usize)> {
        let ids: Vec<String> = records.iter().map(|r| r.id.clone()).collect();
        let bundle = Bundle {
            bundle: "omni diagnostic bundle",
            created_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            daemon: serde_json::json!({ "version": env!("CARGO_PKG_VERSION"), "config": policy.config }),
            session,
            log_entries,
            errors: records,
            transcript,
        };
        let json = serde_json::to_vec_pretty(&bundle).map_err(io::Error::other)?;
        let text = policy.redactor.text(&String::from_utf8_lossy(&json));
        Ok((text.into_bytes(), ids.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_splits_into_its_entries() {
        let log = "[t1] ERROR: error a, session s\nMessage: x\nResponse: body: {\n \"k\": 1\n}\n---\n[t1] Conversation History Snapshot\nData: {}\n\n\
                   [t2] ERROR: error b, session s\nMessage: y\n---\nData: {}\n\n";
        let found = entries(log);
        assert_eq!(found.len(), 2);
        assert!(found[0].starts_with("[t1] ERROR: error a,") && found[0].contains("\"k\": 1"));
        assert!(found[1].starts_with("[t2] ERROR: error b,"));
    }
}
