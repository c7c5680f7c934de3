//! Reads: each one query on a pooled connection, decoding the records the embedded store
//! would hold.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;
use uuid::Uuid;

use super::{PgStore, int};
use crate::model::{MoveRecord, NodeId, NodeRecord, SessionRecord};
use crate::store::encoding::formats::{decode_move, decode_node, decode_session};
use crate::store::{ChainHash, ContentHash, Link, StoreError, StoredSession};

impl PgStore {
    /// Runs a query and returns its rows.
    async fn rows(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let client = self.connection().await?;
        let rows = client
            .query(sql, params)
            .await
            .map_err(|e| self.failed(e))?;
        self.health.recovered();
        Ok(rows)
    }

    /// Runs a query of at most one row.
    async fn row(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, StoreError> {
        Ok(self.rows(sql, params).await?.into_iter().next())
    }

    /// Bytes the database occupies.
    pub async fn size_on_disk(&self) -> u64 {
        let size = self
            .row("SELECT pg_database_size(current_database())", &[])
            .await;
        match size {
            Ok(Some(row)) => row.get::<_, i64>(0).max(0) as u64,
            _ => 0,
        }
    }

    /// A session's record, if it exists.
    pub async fn session(&self, id: &Uuid) -> Result<Option<SessionRecord>, StoreError> {
        let row = self
            .row("SELECT record FROM sessions WHERE id = $1", &[id])
            .await?;
        row.map(|row| decode_session(row.get(0))).transpose()
    }

    /// Whether the session's record was written before usage totals were kept.
    pub async fn session_predates_usage(&self, id: &Uuid) -> Result<bool, StoreError> {
        let row = self
            .row("SELECT record FROM sessions WHERE id = $1", &[id])
            .await?;
        Ok(row.is_some_and(|row| row.get::<_, &[u8]>(0).first().is_some_and(|f| *f < 5)))
    }

    /// Every session record, decoded or why it cannot be.
    pub async fn sessions(&self) -> Result<Vec<StoredSession>, StoreError> {
        let rows = self.rows("SELECT id, record FROM sessions", &[]).await?;
        Ok(rows
            .iter()
            .map(|row| StoredSession {
                id: row.get(0),
                record: decode_session(row.get(1)),
            })
            .collect())
    }

    /// Every node of a session, in order.
    pub async fn nodes(&self, session: &Uuid) -> Result<Vec<NodeRecord>, StoreError> {
        let sql = "SELECT value FROM nodes WHERE session = $1 ORDER BY id";
        let rows = self.rows(sql, &[session]).await?;
        rows.iter().map(|row| decode_node(row.get(0))).collect()
    }

    /// Every node that can be read, and what is wrong with the others.
    pub async fn readable_nodes(
        &self,
        session: &Uuid,
    ) -> Result<(Vec<NodeRecord>, Vec<String>), StoreError> {
        let sql = "SELECT id, value FROM nodes WHERE session = $1 ORDER BY id";
        let (mut nodes, mut problems) = (Vec::new(), Vec::new());
        for row in self.rows(sql, &[session]).await? {
            match decode_node(row.get(1)) {
                Ok(node) => nodes.push(node),
                Err(error) => problems.push(format!("node {}: {error}", row.get::<_, i64>(0))),
            }
        }
        Ok((nodes, problems))
    }

    /// One node of a session; a missing node is corruption (the tree said it exists).
    pub async fn node(&self, session: &Uuid, id: NodeId) -> Result<NodeRecord, StoreError> {
        let sql = "SELECT value FROM nodes WHERE session = $1 AND id = $2";
        match self.row(sql, &[session, &int(id)]).await? {
            Some(row) => decode_node(row.get(0)),
            None => Err(StoreError::Corrupt(format!(
                "node {id} of session {session} is missing"
            ))),
        }
    }

    /// Whether node `node` and move `mv` of a session are stored (number 0 always is).
    pub async fn holds(
        &self,
        session: &Uuid,
        node: NodeId,
        mv: u64,
    ) -> Result<(bool, bool), StoreError> {
        let sql = "SELECT $2::bigint = 0
                          OR EXISTS (SELECT 1 FROM nodes WHERE session = $1 AND id = $2),
                          $3::bigint = 0
                          OR EXISTS (SELECT 1 FROM moves WHERE session = $1 AND seq = $3)";
        let row = self.row(sql, &[session, &int(node), &int(mv)]).await?;
        Ok(row.map_or((false, false), |row| (row.get(0), row.get(1))))
    }

    /// One move of a session's log, if it exists.
    pub async fn move_record(
        &self,
        session: &Uuid,
        seq: u64,
    ) -> Result<Option<MoveRecord>, StoreError> {
        let sql = "SELECT value FROM moves WHERE session = $1 AND seq = $2";
        let row = self.row(sql, &[session, &int(seq)]).await?;
        row.map(|row| decode_move(row.get(0))).transpose()
    }

    /// A session's move log, in order.
    pub async fn moves(&self, session: &Uuid) -> Result<Vec<MoveRecord>, StoreError> {
        let sql = "SELECT value FROM moves WHERE session = $1 ORDER BY seq";
        let rows = self.rows(sql, &[session]).await?;
        rows.iter().map(|row| decode_move(row.get(0))).collect()
    }

    /// The sessions whose purge began and is not finished everywhere yet.
    pub async fn unfinished_purges(&self) -> Vec<Uuid> {
        let rows = self
            .rows("SELECT session FROM unfinished_purges", &[])
            .await;
        rows.map(|rows| rows.iter().map(|row| row.get(0)).collect())
            .unwrap_or_default()
    }

    /// Where a recorded conversation's turn is, if it is.
    pub async fn chain(&self, hash: &ChainHash) -> Result<Option<(Uuid, NodeId)>, StoreError> {
        let sql = "SELECT session, node FROM chains WHERE hash = $1";
        let row = self.row(sql, &[&&hash[..]]).await?;
        Ok(row.map(|row| (row.get(0), row.get::<_, i64>(1) as NodeId)))
    }

    /// Where a recorded or imported session came from.
    pub async fn origin(&self, session: &Uuid) -> Option<String> {
        let sql = "SELECT origin FROM sessions WHERE id = $1";
        let row = self.row(sql, &[session]).await;
        row.ok().flatten().and_then(|row| row.get(0))
    }

    /// Every node's parent and role, without reading the nodes.
    pub async fn links(&self, session: &Uuid, count: u64) -> Result<Vec<Link>, StoreError> {
        let sql = "SELECT parent, role FROM nodes WHERE session = $1 AND id <= $2 ORDER BY id";
        let rows = self.rows(sql, &[session, &int(count)]).await?;
        Ok(rows
            .iter()
            .map(|row| Link {
                parent: row.get::<_, i64>(0) as NodeId,
                role: Link::role_of(row.get::<_, i16>(1) as u8),
            })
            .collect())
    }

    /// The session an earlier import of this content created, if any.
    pub async fn imported(&self, hash: &ContentHash) -> Result<Option<Uuid>, StoreError> {
        let sql = "SELECT session FROM imports WHERE hash = $1";
        Ok(self.row(sql, &[&&hash[..]]).await?.map(|row| row.get(0)))
    }

    /// Every chain entry: the conversation's hash, its session and node.
    pub async fn chain_entries(&self) -> Result<Vec<(ChainHash, Uuid, NodeId)>, StoreError> {
        let rows = self
            .rows("SELECT hash, session, node FROM chains", &[])
            .await?;
        rows.iter()
            .map(|row| {
                let hash = hash_of(row.get::<_, &[u8]>(0))?;
                Ok((hash, row.get(1), row.get::<_, i64>(2) as NodeId))
            })
            .collect()
    }

    /// Every import's content hash and the session it made.
    pub async fn import_entries(&self) -> Result<Vec<(ContentHash, Uuid)>, StoreError> {
        let rows = self.rows("SELECT hash, session FROM imports", &[]).await?;
        rows.iter()
            .map(|row| Ok((hash_of(row.get::<_, &[u8]>(0))?, row.get(1))))
            .collect()
    }

    /// How many sessions the store holds (0 when it cannot be asked).
    pub async fn session_count(&self) -> usize {
        let row = self.row("SELECT count(*) FROM sessions", &[]).await;
        row.ok()
            .flatten()
            .map_or(0, |row| row.get::<_, i64>(0).max(0) as usize)
    }

    /// Sessions' (last activity, id) places, newest first, strictly before `before`.
    pub async fn by_activity(
        &self,
        before: Option<(u64, Uuid)>,
        limit: usize,
    ) -> Result<Vec<(u64, Uuid)>, StoreError> {
        let limit = limit as i64;
        let rows = match before {
            Some((at, id)) => {
                let sql = "SELECT updated_at_ms, id FROM sessions
                           WHERE (updated_at_ms, id) < ($1, $2)
                           ORDER BY updated_at_ms DESC, id DESC LIMIT $3";
                self.rows(sql, &[&int(at), &id, &limit]).await?
            }
            None => {
                let sql = "SELECT updated_at_ms, id FROM sessions
                           ORDER BY updated_at_ms DESC, id DESC LIMIT $1";
                self.rows(sql, &[&limit]).await?
            }
        };
        Ok(rows
            .iter()
            .map(|row| (row.get::<_, i64>(0).max(0) as u64, row.get(1)))
            .collect())
    }
}

/// A 32-byte hash as stored.
fn hash_of(bytes: &[u8]) -> Result<[u8; 32], StoreError> {
    bytes
        .try_into()
        .map_err(|_| StoreError::Corrupt(format!("a hash of {} bytes, not 32", bytes.len())))
}
