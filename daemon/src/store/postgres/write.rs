//! Changes: each one transaction, committed before the caller hears (PostgreSQL's
//! `synchronous_commit`, on by default, makes the commit durable), then handed to the
//! observer.

use deadpool_postgres::Transaction;
use tokio_postgres::error::SqlState;
use uuid::Uuid;

use super::{PgStore, feed, int};
use crate::model::{MoveRecord, NodeRecord, SessionRecord};
use crate::store::encoding::codec;
use crate::store::encoding::formats::{MOVE_FORMAT, NODE_FORMAT, SESSION_FORMAT};
use crate::store::{ChainHash, Change, Import, Link, Purged, Recorded, StoreError};

/// A node of a change.
pub(super) const NODE: &str =
    "INSERT INTO nodes (session, id, parent, role, value) VALUES ($1, $2, $3, $4, $5)";

/// A move of a change.
pub(super) const MOVE: &str = "INSERT INTO moves (session, seq, value) VALUES ($1, $2, $3)";

/// The session's record after a change (and, for a whole session, its origin).
pub(super) const SESSION: &str = "INSERT INTO sessions (id, record, updated_at_ms, origin)
    VALUES ($1, $2, $3, $4)
    ON CONFLICT (id) DO UPDATE
    SET record = EXCLUDED.record, updated_at_ms = EXCLUDED.updated_at_ms,
        origin = COALESCE(EXCLUDED.origin, sessions.origin)";

/// A recorded conversation's chain entry.
pub(super) const CHAIN: &str = "INSERT INTO chains (hash, session, node) VALUES ($1, $2, $3)
    ON CONFLICT (hash) DO UPDATE SET session = EXCLUDED.session, node = EXCLUDED.node";

impl PgStore {
    /// Commits a change in one transaction: its writes go out together (pipelined, each
    /// a statement prepared once per connection), then the commit.
    pub async fn commit(&self, change: &Change<'_>) -> Result<(), StoreError> {
        let id = change.session.id;
        if let Some(Recorded::Chain(_)) = &change.recorded
            && change.node.is_none()
        {
            return Err(StoreError::Corrupt(
                "a conversation's chain entry needs its node".into(),
            ));
        }
        let mut client = self.connection().await?;
        let failed = |e| self.failed(e);
        let transaction = client.transaction().await.map_err(failed)?;
        // The lease goes first (every statement is prepared already, so they go out in the
        // order written): two changes of one session wait for each other there, before
        // either writes anything else.
        let lease = self.lease_step(&transaction, &id, change.fence);
        let node = async {
            match change.node {
                Some(node) => insert_node(&transaction, &id, node).await,
                None => Ok(()),
            }
        };
        let mv = async {
            match change.mv {
                Some(mv) => insert_move(&transaction, &id, mv).await,
                None => Ok(()),
            }
        };
        let session = write_session(&transaction, change.session, None);
        let chain = async {
            match (&change.recorded, change.node) {
                (Some(Recorded::Chain(hash)), Some(node)) => {
                    Ok(insert_chain(&transaction, hash, &id, node.id).await?)
                }
                _ => Ok(()),
            }
        };
        let noted = async { Ok(self.note(&transaction, &id, feed::COMMITTED).await?) };
        let (leased, node, mv, session, chain, noted) =
            tokio::join!(lease, node, mv, session, chain, noted);
        let written = first_cause([node, mv, session, chain, noted]).map_err(failed_or(self, id));
        match leased {
            Ok(true) => written?,
            Ok(false) => {
                drop(transaction);
                return Err(self.refused(&client, &id, change.fence).await);
            }
            Err(error) => {
                // The lease's statement went out after one that failed (a connection whose
                // statements were not prepared yet): the lease, if another's, says why.
                drop(transaction);
                let refused = self.refused_if_not_ours(&client, &id, change.fence).await;
                return Err(
                    refused.unwrap_or_else(|| written.err().unwrap_or_else(|| failed(error)))
                );
            }
        }
        transaction.commit().await.map_err(failed)?;
        let gained = change.node.map(std::slice::from_ref).unwrap_or_default();
        self.committed(id, gained).await;
        Ok(())
    }

    /// A change that creates a session: committed like any other.
    pub async fn commit_new(&self, change: &Change<'_>) -> Result<(), StoreError> {
        self.commit(change).await
    }

    /// Commits a change (a database has no cheaper write than a commit).
    pub async fn apply(&self, change: &Change<'_>) -> Result<(), StoreError> {
        self.commit(change).await
    }

    /// Writes a whole session (an import, or a recorded conversation) in one transaction.
    pub async fn import(&self, import: &Import<'_>) -> Result<(), StoreError> {
        let id = import.session.id;
        let mut client = self.connection().await?;
        let failed = |e| self.failed(e);
        let transaction = client.transaction().await.map_err(failed)?;
        insert_nodes(&transaction, &id, import.nodes)
            .await
            .map_err(failed_or(self, id))?;
        insert_moves(&transaction, &id, import.moves)
            .await
            .map_err(failed_or(self, id))?;
        write_session(&transaction, import.session, import.origin)
            .await
            .map_err(failed_or(self, id))?;
        if let Some(hash) = &import.hash {
            let sql = "INSERT INTO imports (hash, session) VALUES ($1, $2)
                       ON CONFLICT (hash) DO UPDATE SET session = EXCLUDED.session";
            transaction
                .execute(sql, &[&&hash[..], &id])
                .await
                .map_err(failed)?;
        }
        for (hash, node) in import.chains {
            insert_chain(&transaction, hash, &id, *node)
                .await
                .map_err(failed)?;
        }
        self.note(&transaction, &id, feed::COMMITTED)
            .await
            .map_err(failed)?;
        transaction.commit().await.map_err(failed)?;
        self.committed(id, import.nodes).await;
        Ok(())
    }

    /// Removes a session and everything of it in one transaction, noting it as a purge
    /// not yet finished everywhere (see [`PgStore::purge_finished`]).
    pub async fn purge(&self, id: &Uuid) -> Result<Option<Purged>, StoreError> {
        let mut client = self.connection().await?;
        let failed = |e| self.failed(e);
        let transaction = client.transaction().await.map_err(failed)?;
        let removed = transaction
            .execute("DELETE FROM sessions WHERE id = $1", &[id])
            .await
            .map_err(failed)?;
        if removed == 0 {
            return Ok(None);
        }
        let sql = "INSERT INTO unfinished_purges (session) VALUES ($1) ON CONFLICT DO NOTHING";
        transaction.execute(sql, &[id]).await.map_err(failed)?;
        let delete = |table: &'static str| format!("DELETE FROM {table} WHERE session = $1");
        let nodes = transaction
            .execute(&delete("nodes"), &[id])
            .await
            .map_err(failed)?;
        let moves = transaction
            .execute(&delete("moves"), &[id])
            .await
            .map_err(failed)?;
        for table in ["chains", "imports", "leases"] {
            transaction
                .execute(&delete(table), &[id])
                .await
                .map_err(failed)?;
        }
        let forgotten = "DELETE FROM diagnostics WHERE session = $1";
        transaction
            .execute(forgotten, &[&id.to_string()])
            .await
            .map_err(failed)?;
        self.note(&transaction, id, feed::PURGED)
            .await
            .map_err(failed)?;
        transaction.commit().await.map_err(failed)?;
        self.committed(*id, &[]).await;
        Ok(Some(Purged {
            nodes: nodes as usize,
            moves: moves as usize,
        }))
    }

    /// Notes that a session's purge is finished everywhere.
    pub async fn purge_finished(&self, id: &Uuid) -> Result<(), StoreError> {
        let client = self.connection().await?;
        let sql = "DELETE FROM unfinished_purges WHERE session = $1";
        client
            .execute(sql, &[id])
            .await
            .map_err(|e| self.failed(e))?;
        Ok(())
    }
}

/// The error that caused a pipelined transaction to fail: once one statement fails, the
/// ones after it fail as "transaction aborted", and may be heard first.
fn first_cause(results: [Result<(), WriteError>; 5]) -> Result<(), WriteError> {
    let aborted = |error: &WriteError| match error {
        WriteError::Database(error) => error.code() == Some(&SqlState::IN_FAILED_SQL_TRANSACTION),
        WriteError::Store(_) => false,
    };
    let mut errors: Vec<WriteError> = results.into_iter().filter_map(Result::err).collect();
    match errors.iter().position(|error| !aborted(error)) {
        Some(cause) => Err(errors.swap_remove(cause)),
        None => errors.into_iter().next().map_or(Ok(()), Err),
    }
}

/// A write failed: the database's error, or a record that could not be encoded.
enum WriteError {
    Database(tokio_postgres::Error),
    Store(StoreError),
}

impl From<tokio_postgres::Error> for WriteError {
    fn from(error: tokio_postgres::Error) -> Self {
        WriteError::Database(error)
    }
}

impl From<StoreError> for WriteError {
    fn from(error: StoreError) -> Self {
        WriteError::Store(error)
    }
}

/// Names a database failure (and notes it); passes an encoding failure on. A node or move
/// of `session` already there means another omnid changed the session first.
fn failed_or(store: &PgStore, session: Uuid) -> impl Fn(WriteError) -> StoreError + '_ {
    move |error| match error {
        WriteError::Database(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
            StoreError::ChangedElsewhere { session }
        }
        WriteError::Database(error) => store.failed(error),
        WriteError::Store(error) => error,
    }
}

async fn insert_node(
    transaction: &Transaction<'_>,
    session: &Uuid,
    node: &NodeRecord,
) -> Result<(), WriteError> {
    let value = codec::encode(node, NODE_FORMAT)?;
    let role = i16::from(Link::role_code(node.role));
    let statement = transaction.prepare_cached(NODE).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
        [session, &int(node.id), &int(node.parent), &role, &value];
    transaction.execute(&statement, &params).await?;
    Ok(())
}

async fn insert_move(
    transaction: &Transaction<'_>,
    session: &Uuid,
    mv: &MoveRecord,
) -> Result<(), WriteError> {
    let value = codec::encode(mv, MOVE_FORMAT)?;
    let statement = transaction.prepare_cached(MOVE).await?;
    transaction
        .execute(&statement, &[session, &int(mv.seq), &value])
        .await?;
    Ok(())
}

/// Inserts a whole session's nodes in one statement (arrays unnested on the server).
async fn insert_nodes(
    transaction: &Transaction<'_>,
    session: &Uuid,
    nodes: &[NodeRecord],
) -> Result<(), WriteError> {
    let mut columns = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for node in nodes {
        columns.0.push(int(node.id));
        columns.1.push(int(node.parent));
        columns.2.push(i16::from(Link::role_code(node.role)));
        columns.3.push(codec::encode(node, NODE_FORMAT)?);
    }
    let sql = "INSERT INTO nodes (session, id, parent, role, value)
               SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::smallint[], $5::bytea[])";
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
        [session, &columns.0, &columns.1, &columns.2, &columns.3];
    transaction.execute(sql, &params).await?;
    Ok(())
}

/// Inserts a whole session's moves in one statement.
async fn insert_moves(
    transaction: &Transaction<'_>,
    session: &Uuid,
    moves: &[MoveRecord],
) -> Result<(), WriteError> {
    let mut seqs = Vec::with_capacity(moves.len());
    let mut values = Vec::with_capacity(moves.len());
    for mv in moves {
        seqs.push(int(mv.seq));
        values.push(codec::encode(mv, MOVE_FORMAT)?);
    }
    let sql = "INSERT INTO moves (session, seq, value)
               SELECT $1, * FROM unnest($2::bigint[], $3::bytea[])";
    transaction.execute(sql, &[session, &seqs, &values]).await?;
    Ok(())
}

/// Writes the session's record (and, for a whole session written at once, its origin).
async fn write_session(
    transaction: &Transaction<'_>,
    record: &SessionRecord,
    origin: Option<&str>,
) -> Result<(), WriteError> {
    let value = codec::encode(record, SESSION_FORMAT)?;
    let statement = transaction.prepare_cached(SESSION).await?;
    let active = int(record.updated_at_ms);
    transaction
        .execute(&statement, &[&record.id, &value, &active, &origin])
        .await?;
    Ok(())
}

async fn insert_chain(
    transaction: &Transaction<'_>,
    hash: &ChainHash,
    session: &Uuid,
    node: u64,
) -> Result<(), tokio_postgres::Error> {
    let statement = transaction.prepare_cached(CHAIN).await?;
    transaction
        .execute(&statement, &[&&hash[..], session, &int(node)])
        .await?;
    Ok(())
}
