//! Diagnostics: every failure the user may need to explain is written down, with the exact
//! request that failed, *before* the error is returned or the session changes.
//!
//! In the log directory: `api_errors.log` (a readable block per error, see `entry.rs`),
//! rotated at 10 MB, and `errors/<YYYY-MM-DD>/<session>/<error-id>.json` (one structured
//! record per error). Secrets are redacted everywhere. A failure to write is logged through
//! `tracing` and counted, and never fails the request it describes.

mod entry;
mod files;
mod forget;
mod query;
mod rotate;
mod shared;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde_json::Value;

use crate::provider::Redactor;
use crate::store::SharedDiagnostic;

pub use entry::{AttemptTrace, Cause, ErrorRecord, Report, ResponseInfo};
pub use rotate::{LOG_NAME, Retention};

/// What a configuration reload can change about diagnostics.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Removes secrets (the configured key) from what is written.
    pub redactor: Redactor,
    /// The daemon's configuration, secrets removed, recorded with every error.
    pub config: Value,
    /// What the log directory keeps.
    pub retention: Retention,
}

/// Writes and reads the diagnostic records of one daemon.
pub struct Diagnostics {
    dir: PathBuf,
    write_failures: AtomicU64,
    /// One writer at a time, so entries never interleave and rotation is decided once.
    writing: Mutex<()>,
    /// A shared store, which keeps every record too, for every instance to read
    /// (`shared.rs`).
    shared: Option<Arc<crate::store::Store>>,
}

/// A fresh error id: sortable by time, unique in practice (`20261122T010203Z-a1b2c3`).
fn new_id(now: SystemTime) -> String {
    let stamp = humantime::format_rfc3339_seconds(now)
        .to_string()
        .replace(['-', ':'], "");
    format!("{stamp}-{:06x}", fastrand::u32(..0x100_0000))
}

impl Diagnostics {
    /// Diagnostics in `dir`. Old archives and records are pruned now (as `retention` says)
    /// and at every rotation (as the policy of the write that rotates says).
    pub fn new(dir: &Path, retention: &Retention) -> Self {
        if let Err(error) = rotate::prune(dir, retention, SystemTime::now()) {
            tracing::warn!(%error, dir = %dir.display(), "could not prune old diagnostic records");
        }
        Self {
            dir: dir.to_path_buf(),
            write_failures: AtomicU64::new(0),
            writing: Mutex::new(()),
            shared: None,
        }
    }

    /// The live log file.
    pub fn log_path(&self) -> PathBuf {
        self.dir.join(LOG_NAME)
    }

    /// Records that could not be written since start-up.
    pub fn write_failures(&self) -> u64 {
        self.write_failures.load(Ordering::Relaxed)
    }

    /// Writes the log entry and the JSON record of a failure under `policy` (the settings
    /// the failing send started with), both synced, and returns the error's id. Runs on the
    /// blocking pool; if writing fails, the failure is logged and counted and `None` is
    /// returned.
    pub async fn record(self: &Arc<Self>, report: Report, policy: &Policy) -> Option<String> {
        let (this, policy) = (self.clone(), policy.clone());
        let written = tokio::task::spawn_blocking(move || this.write(&report, &policy)).await;
        match written {
            Ok(Ok(written)) => Some(self.share(written).await),
            Ok(Err(error)) => {
                self.write_failures.fetch_add(1, Ordering::Relaxed);
                tracing::error!(%error, dir = %self.dir.display(), "could not write a diagnostic record");
                None
            }
            Err(join) => {
                self.write_failures.fetch_add(1, Ordering::Relaxed);
                tracing::error!(%join, "the diagnostic writer failed");
                None
            }
        }
    }

    fn write(&self, report: &Report, policy: &Policy) -> std::io::Result<SharedDiagnostic> {
        let _one_writer = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        let now = SystemTime::now();
        let id = new_id(now);
        let time = humantime::format_rfc3339_millis(now).to_string();
        crate::private::create_dir(&self.dir)?;

        let record = entry::json_record(&id, &time, report, &policy.redactor, &policy.config);
        let day_dir = self
            .dir
            .join("errors")
            .join(&time[..10])
            .join(report.subject());
        crate::private::create_dir(&day_dir)?;
        let json = serde_json::to_vec_pretty(&record).map_err(std::io::Error::other)?;
        files::write_atomically(&day_dir.join(format!("{id}.json")), &json)?;
        // The new directories' names must be durable too.
        for dir in [
            day_dir.parent(),
            day_dir.parent().and_then(Path::parent),
            Some(self.dir.as_path()),
        ]
        .into_iter()
        .flatten()
        {
            files::sync_dir(dir)?;
        }

        let text = entry::log_entry(&id, &time, report, &policy.redactor);
        if rotate::rotate_if_needed(&self.dir, text.len() as u64, now)?.is_some() {
            rotate::prune(&self.dir, &policy.retention, now)?;
        }
        files::append_synced(&self.log_path(), &text)?;
        files::sync_dir(&self.dir)?;
        Ok(SharedDiagnostic {
            id,
            subject: report.subject(),
            time,
            record: json,
            entry: text,
        })
    }
}
