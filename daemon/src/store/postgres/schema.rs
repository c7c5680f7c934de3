//! The database's schema, versioned: each migration is applied once, in order, in one
//! transaction with the version it brings, under a lock so that two omnid starting at
//! once never apply one twice. A database whose version is newer than this omnid knows
//! is refused, naming both versions, before anything is read or written.

use tokio_postgres::Client;

use super::PgStore;
use crate::store::StoreError;

/// The migrations, oldest first: the schema's version is how many have been applied.
const MIGRATIONS: &[&str] = &[
    // 1: sessions, their nodes and move logs, and the indexes beside them. Records are
    // the same bytes the embedded store keeps (a format byte, then bincode).
    "CREATE TABLE sessions (
         id uuid PRIMARY KEY,
         record bytea NOT NULL,
         updated_at_ms bigint NOT NULL,
         origin text
     );
     CREATE INDEX sessions_by_activity ON sessions (updated_at_ms DESC, id DESC);
     CREATE TABLE nodes (
         session uuid NOT NULL,
         id bigint NOT NULL,
         parent bigint NOT NULL,
         role smallint NOT NULL,
         value bytea NOT NULL,
         PRIMARY KEY (session, id)
     );
     CREATE TABLE moves (
         session uuid NOT NULL,
         seq bigint NOT NULL,
         value bytea NOT NULL,
         PRIMARY KEY (session, seq)
     );
     CREATE TABLE chains (
         hash bytea PRIMARY KEY,
         session uuid NOT NULL,
         node bigint NOT NULL
     );
     CREATE INDEX chains_by_session ON chains (session);
     CREATE TABLE imports (
         hash bytea PRIMARY KEY,
         session uuid NOT NULL
     );
     CREATE INDEX imports_by_session ON imports (session);
     CREATE TABLE unfinished_purges (session uuid PRIMARY KEY);",
    // 2: who holds each session's lease, until when (the database's clock), and its
    // fencing number, which only grows (the row stays when the lease is let go).
    "CREATE TABLE leases (
         session uuid PRIMARY KEY,
         holder text NOT NULL,
         fence bigint NOT NULL,
         expires_at timestamptz NOT NULL
     );",
    // 3: the change feed (`feed.rs`): each line's transaction id orders it; `origin` is
    // the running omnid that wrote it; lines are kept ten minutes.
    "CREATE TABLE changes (
         xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
         seq bigserial,
         session uuid NOT NULL,
         kind smallint NOT NULL,
         origin uuid NOT NULL,
         body bytea,
         at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (xid, seq)
     );
     CREATE INDEX changes_by_age ON changes (at);",
    // 4: diagnostic records, for every instance to read (`logs`, bundles, recovery): the
    // record (JSON, secrets redacted) and its `api_errors.log` entry.
    "CREATE TABLE diagnostics (
         id text PRIMARY KEY,
         session text NOT NULL,
         at text NOT NULL,
         record bytea NOT NULL,
         entry text NOT NULL
     );
     CREATE INDEX diagnostics_by_session ON diagnostics (session);",
    // 5: the feed's floor: lines of transactions before it may have been pruned.
    "CREATE TABLE feed_floor (mark bigint NOT NULL);
     INSERT INTO feed_floor (mark) VALUES (0);",
];

/// The newest schema version this omnid knows.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

impl PgStore {
    /// Brings the schema up to [`SCHEMA_VERSION`], or refuses a newer one.
    pub(super) async fn migrate(&self, client: &mut Client) -> Result<(), StoreError> {
        let failed = |e| self.failed(e);
        let transaction = client.transaction().await.map_err(failed)?;
        transaction
            .batch_execute(
                "CREATE TABLE IF NOT EXISTS omni_schema (version integer NOT NULL);
                 LOCK TABLE omni_schema IN EXCLUSIVE MODE;",
            )
            .await
            .map_err(failed)?;
        let found: i32 = match transaction
            .query_opt("SELECT version FROM omni_schema", &[])
            .await
            .map_err(failed)?
        {
            Some(row) => row.get(0),
            None => {
                transaction
                    .execute("INSERT INTO omni_schema (version) VALUES (0)", &[])
                    .await
                    .map_err(failed)?;
                0
            }
        };
        if found > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                store: self.target.clone(),
                found,
                known: SCHEMA_VERSION,
            });
        }
        for (applied, migration) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            transaction.batch_execute(migration).await.map_err(failed)?;
            let version = applied as i32 + 1;
            transaction
                .execute("UPDATE omni_schema SET version = $1", &[&version])
                .await
                .map_err(failed)?;
            tracing::info!(store = %self.target, version, "the store's schema was brought up to date");
        }
        transaction.commit().await.map_err(failed)
    }
}
