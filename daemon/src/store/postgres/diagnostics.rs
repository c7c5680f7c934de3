//! Diagnostic records in the shared database (table `diagnostics`), so that `omnictl logs`,
//! bundles and recovery on any instance read the records every instance wrote. Each is
//! also written in the writing instance's log directory, as on the embedded store.

use super::PgStore;
use crate::store::{SharedDiagnostic, StoreError};

impl PgStore {
    /// Keeps a record (once: the same id again changes nothing).
    pub async fn put_diagnostic(&self, record: &SharedDiagnostic) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let sql = "INSERT INTO diagnostics (id, session, at, record, entry)
                   VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING";
        client
            .execute(
                sql,
                &[
                    &record.id,
                    &record.subject,
                    &record.time,
                    &record.record,
                    &record.entry,
                ],
            )
            .await
            .map_err(|e| self.failed(e))?;
        Ok(())
    }

    /// The records of one subject (or all), whose id begins with `prefix` (or any).
    pub async fn diagnostics(
        &self,
        subject: Option<&str>,
        prefix: Option<&str>,
    ) -> Result<Vec<SharedDiagnostic>, StoreError> {
        let client = self.connection().await?;
        let sql = "SELECT id, session, at, record, entry FROM diagnostics
                   WHERE ($1::text IS NULL OR session = $1)
                     AND ($2::text IS NULL OR starts_with(id, $2))
                   ORDER BY at DESC, id DESC";
        let rows = client
            .query(sql, &[&subject, &prefix])
            .await
            .map_err(|e| self.failed(e))?;
        Ok(rows
            .iter()
            .map(|row| SharedDiagnostic {
                id: row.get(0),
                subject: row.get(1),
                time: row.get(2),
                record: row.get(3),
                entry: row.get(4),
            })
            .collect())
    }
}
