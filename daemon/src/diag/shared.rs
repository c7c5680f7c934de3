//! Diagnostic records on a shared store: each record is also kept in the database, written
//! before the request it describes is answered (and before the session changes), so that
//! `omnictl logs`, bundles and the recovery menu on every instance read every instance's
//! records. On the embedded store, and should the database fail to answer, the log
//! directory is read, as it always holds this instance's own.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Diagnostics, ErrorRecord};
use crate::store::{SharedDiagnostic, Store};

impl Diagnostics {
    /// Keeps every record in `store` too (a shared store).
    pub fn shared_through(mut self, store: Arc<Store>) -> Self {
        self.shared = store.is_shared().then_some(store);
        self
    }

    /// Puts a record written in the log directory into the shared store, if any; its id.
    pub(super) async fn share(&self, written: SharedDiagnostic) -> String {
        if let Some(store) = &self.shared
            && let Err(error) = store.put_diagnostic(&written).await
        {
            self.write_failures.fetch_add(1, Ordering::Relaxed);
            tracing::error!(%error, id = %written.id, "a diagnostic record could not be kept in the shared store; it is in this omnid's log directory");
        }
        written.id
    }

    /// The shared store's records of `subject` (or all) whose id begins with `prefix`;
    /// `None` when there is no shared store or it cannot answer.
    async fn shared_records(
        &self,
        subject: Option<&str>,
        prefix: Option<&str>,
    ) -> Option<Vec<SharedDiagnostic>> {
        let store = self.shared.as_ref()?;
        match store.diagnostics(subject, prefix).await {
            Ok(found) => found,
            Err(error) => {
                tracing::warn!(%error, "the shared store's diagnostic records cannot be read; showing this omnid's own");
                None
            }
        }
    }

    /// Every record, newest first; only one session's if given.
    pub async fn records(&self, session: Option<&str>) -> Vec<ErrorRecord> {
        match self.shared_records(session, None).await {
            Some(found) => found.iter().filter_map(decoded).collect(),
            None => self.local_records(session),
        }
    }

    /// One record by id (or a unique prefix of one).
    pub async fn find(&self, id: &str) -> Result<ErrorRecord, String> {
        let Some(found) = self.shared_records(None, Some(id)).await else {
            return self.local_find(id);
        };
        match found.as_slice() {
            [one] => decoded(one).ok_or_else(|| format!("the record of error {id} cannot be read")),
            [] => Err(format!(
                "no recorded error matches '{id}'; `omnictl logs list` shows them"
            )),
            many => Err(format!(
                "'{id}' matches {} recorded errors; give more of the id",
                many.len()
            )),
        }
    }

    /// The `api_errors.log` entries of the given errors.
    pub async fn log_entries(self: &Arc<Self>, ids: Vec<String>) -> Vec<String> {
        if self.shared.is_some() {
            let mut entries = Vec::new();
            for id in &ids {
                if let Some(found) = self.shared_records(None, Some(id)).await {
                    entries.extend(found.into_iter().filter(|d| d.id == *id).map(|d| d.entry));
                }
            }
            return entries;
        }
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.entries_of(&ids))
            .await
            .unwrap_or_default()
    }
}

fn decoded(found: &SharedDiagnostic) -> Option<ErrorRecord> {
    serde_json::from_slice(&found.record).ok()
}
