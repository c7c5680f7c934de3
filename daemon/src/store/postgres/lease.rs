//! Leases on the shared store (see `store/lease.rs`): taken, renewed, let go, and checked
//! inside each commit's transaction, all by the database's clock, so the instances'
//! clocks never need to agree.

use std::time::Duration;

use deadpool_postgres::{GenericClient, Pool};
use uuid::Uuid;

use super::PgStore;
use crate::store::{Fence, Lease, StoreError};

/// Takes a lease nobody holds (or whose holder let it run out), with a new fence. One that
/// names this instance is its own, left behind (it could not be let go while the database
/// was away, or an earlier run was killed): this instance's one actor per session holds no
/// other, so it is taken over at once.
const TAKE: &str = "INSERT INTO leases (session, holder, fence, expires_at)
    VALUES ($1, $2, 1, now() + make_interval(secs => $3))
    ON CONFLICT (session) DO UPDATE
    SET holder = EXCLUDED.holder, fence = leases.fence + 1, expires_at = EXCLUDED.expires_at
    WHERE leases.expires_at <= now() OR leases.holder = EXCLUDED.holder
    RETURNING fence";

/// Takes and lets go of a lease at once, for a change made in one transaction: the fence
/// still moves on, so a holder whose lease ran out can write no more.
pub(super) const TAKE_FOR_ONE: &str = "INSERT INTO leases (session, holder, fence, expires_at)
    VALUES ($1, $2, 1, '-infinity')
    ON CONFLICT (session) DO UPDATE
    SET holder = EXCLUDED.holder, fence = leases.fence + 1, expires_at = '-infinity'
    WHERE leases.expires_at <= now() OR leases.holder = EXCLUDED.holder
    RETURNING fence";

/// Renews a lease still held under its fence.
pub(super) const RENEW: &str = "UPDATE leases SET expires_at = now() + make_interval(secs => $3)
    WHERE session = $1 AND fence = $2";

/// Lets a lease go (the row, and its fence, stay).
const RELEASE: &str = "UPDATE leases SET expires_at = '-infinity'
    WHERE session = $1 AND fence = $2";

/// Whether a session's lease is another's now: its fence differs from `$2` (a change made
/// under a lease), or (`$2` null) it is held, unexpired, by another instance than `$3`.
const NOT_OURS: &str = "SELECT 1 FROM leases WHERE session = $1 AND CASE
        WHEN $2::bigint IS NOT NULL THEN fence <> $2
        ELSE expires_at > now() AND holder <> $3 END";

/// Who holds a session's lease, and for how many more seconds.
const HOLDER: &str = "SELECT holder, CASE WHEN expires_at > now()
        THEN ceil(extract(epoch FROM expires_at - now()))::bigint ELSE 0 END
    FROM leases WHERE session = $1";

/// Lets go of the leases an earlier run of this instance held.
const LEFT_BEHIND: &str = "UPDATE leases SET expires_at = '-infinity'
    WHERE holder = $1 AND expires_at > now()";

impl PgStore {
    /// At start: an earlier run of this instance (same name) that was killed mid-turn
    /// left its leases behind; they are let go at once, so the sessions it held do not
    /// stay busy until the leases run out. (Hence each instance needs a name of its own.)
    pub(super) async fn let_go_of_left_behind(
        &self,
        client: &tokio_postgres::Client,
    ) -> Result<(), StoreError> {
        let released = client
            .execute(LEFT_BEHIND, &[&self.instance])
            .await
            .map_err(|e| self.failed(e))?;
        if released > 0 {
            tracing::info!(sessions = released, instance = %self.instance, "let go of the sessions an earlier run of this omnid held when it stopped");
        }
        Ok(())
    }

    /// Takes the session's lease for a change that lasts, renewed in the background until
    /// it is let go; refused, naming the holder, while another instance holds it.
    pub async fn hold(&self, session: &Uuid) -> Result<Option<Lease>, StoreError> {
        let client = self.connection().await?;
        let failed = |e| self.failed(e);
        let statement = client.prepare_cached(TAKE).await.map_err(failed)?;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
            [session, &self.instance, &self.lease.as_secs_f64()];
        match client
            .query_opt(&statement, &params)
            .await
            .map_err(failed)?
        {
            Some(row) => {
                let fence = Fence(row.get(0));
                let renewal = self.renew_in_background(*session, fence);
                Ok(Some(Lease {
                    session: *session,
                    fence,
                    renewal,
                }))
            }
            None => Err(self.refused(&client, session, None).await),
        }
    }

    /// Lets a lease go, so that any instance may take the session at once. A failure is
    /// only noted: the lease runs out by itself.
    pub async fn release(&self, lease: Lease) {
        let released = async {
            let client = self.connection().await?;
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] =
                [&lease.session, &lease.fence.0];
            client
                .execute(RELEASE, &params)
                .await
                .map_err(|e| self.failed(e))
        };
        if let Err(error) = released.await {
            tracing::warn!(session = %lease.session, %error, "could not let the session's lease go; it runs out by itself");
        }
    }

    /// Inside a change's transaction: checks (and renews) the lease it is made under, or,
    /// with none, takes and lets go of the lease in the same transaction. False: the
    /// change must not be written.
    pub(super) async fn lease_step(
        &self,
        client: &impl GenericClient,
        session: &Uuid,
        fence: Option<Fence>,
    ) -> Result<bool, tokio_postgres::Error> {
        match fence {
            Some(fence) => {
                let statement = client.prepare_cached(RENEW).await?;
                let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
                    [session, &fence.0, &self.lease.as_secs_f64()];
                Ok(client.execute(&statement, &params).await? == 1)
            }
            None => {
                let statement = client.prepare_cached(TAKE_FOR_ONE).await?;
                let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] =
                    [session, &self.instance];
                Ok(client.query_opt(&statement, &params).await?.is_some())
            }
        }
    }

    /// Why a change was refused by the lease: another instance holds it, or (`fence`: it
    /// was made under a lease) took it over.
    pub(super) async fn refused(
        &self,
        client: &impl GenericClient,
        session: &Uuid,
        fence: Option<Fence>,
    ) -> StoreError {
        let (holder, seconds_left) = match client.query_opt(HOLDER, &[session]).await {
            Ok(Some(row)) => (row.get::<_, String>(0), row.get::<_, i64>(1)),
            Ok(None) => ("(unknown)".to_string(), 0),
            Err(error) => return self.failed(error),
        };
        match fence {
            Some(_) => StoreError::LeaseLost {
                session: *session,
                holder,
            },
            None => StoreError::HeldElsewhere {
                session: *session,
                holder,
                seconds_left: seconds_left.max(0) as u64,
            },
        }
    }

    /// After a change failed with its lease's answer unknown (a statement before it failed
    /// and aborted the transaction): the lease's refusal, if it is another's now.
    pub(super) async fn refused_if_not_ours(
        &self,
        client: &impl GenericClient,
        session: &Uuid,
        fence: Option<Fence>,
    ) -> Option<StoreError> {
        let fenced = fence.map(|f| f.0);
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
            [session, &fenced, &self.instance];
        match client.query_opt(NOT_OURS, &params).await {
            Ok(Some(_)) => Some(self.refused(client, session, fence).await),
            Ok(None) => None,
            Err(error) => {
                tracing::debug!(%error, "cannot tell whose the session's lease is");
                None
            }
        }
    }

    /// Renews a lease every third of its length until it is dropped; stops (noting it)
    /// once another instance took it over.
    fn renew_in_background(&self, session: Uuid, fence: Fence) -> tokio::task::JoinHandle<()> {
        let pool = self.pool.clone();
        let length = self.lease;
        let target = self.target.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(length / 3);
            every.tick().await;
            loop {
                every.tick().await;
                match renew(&pool, session, fence, length).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(%session, "the session's lease was taken over by another omnid; this one's change will not be written");
                        return;
                    }
                    Err(error) => {
                        tracing::warn!(%session, store = %target, %error, "could not renew the session's lease");
                    }
                }
            }
        })
    }
}

/// Renews a lease: false once its fence is no longer the session's.
async fn renew(pool: &Pool, session: Uuid, fence: Fence, length: Duration) -> Result<bool, String> {
    let client = pool.get().await.map_err(|e| e.to_string())?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 3] =
        [&session, &fence.0, &length.as_secs_f64()];
    let renewed = client
        .execute(RENEW, &params)
        .await
        .map_err(|e| super::describe(&e))?;
    Ok(renewed == 1)
}
