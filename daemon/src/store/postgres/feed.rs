//! The change feed on PostgreSQL (see `store/feed.rs`), in the table `changes`. A line's
//! transaction id (`xid8`) orders it; a reader takes only lines of transactions older than
//! every transaction still running (`pg_snapshot_xmin`), so a line whose transaction
//! commits late is read late, never skipped. The wake-up is a notification on
//! `omni_changes`, sent when the transaction commits; a reader also looks every second.

use std::sync::Arc;
use std::time::{Duration, Instant};

use deadpool_postgres::{GenericClient, Pool};
use tokio::sync::Notify;
use tokio_postgres::{AsyncMessage, Client, NoTls};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::PgStore;
use crate::store::{FeedItem, FeedMark, FeedReader, LiveOutlet, StoreError};

/// A committed change.
pub(super) const COMMITTED: i16 = 0;
/// A purge.
pub(super) const PURGED: i16 = 1;
/// Live events.
const LIVE: i16 = 2;

/// A line of the feed, and its wake-up, in the transaction of the change it tells of.
pub(super) const NOTE: &str = "WITH noted AS (
        INSERT INTO changes (session, kind, origin) VALUES ($1, $2, $3))
    SELECT pg_notify('omni_changes', '')";

/// Live events, a batch at once.
const PUBLISH: &str = "WITH noted AS (
        INSERT INTO changes (session, kind, origin, body)
        SELECT session, 2, $3, body FROM unnest($1::uuid[], $2::bytea[]) AS l(session, body))
    SELECT pg_notify('omni_changes', '')";

/// Every transaction older than this one has ended.
const HORIZON: &str = "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint";

/// The lines of others' transactions between two horizons, in order.
const SINCE: &str = "SELECT session, kind, body FROM changes
    WHERE xid >= $1::bigint::text::xid8 AND xid < $2::bigint::text::xid8 AND origin <> $3
    ORDER BY xid, seq";

/// How long lines are kept: an instance cut off longer than this catches up its search at
/// its next start.
const PRUNE: &str = "WITH gone AS (
        DELETE FROM changes WHERE at < now() - interval '10 minutes'
        RETURNING xid::text::bigint AS mark)
    UPDATE feed_floor SET mark = GREATEST(feed_floor.mark, (SELECT max(mark) + 1 FROM gone))
    WHERE EXISTS (SELECT 1 FROM gone)";

/// Every transaction's commits and purges between two horizons, in order.
const COMMITTED_SINCE: &str = "SELECT session, kind, body FROM changes
    WHERE xid >= $1::bigint::text::xid8 AND xid < $2::bigint::text::xid8 AND kind <> 2
    ORDER BY xid, seq";

/// How long live events gather before they go out together.
const GATHER: Duration = Duration::from_millis(50);

/// How often a reader looks without being woken.
const LOOK_EVERY: Duration = Duration::from_secs(1);

impl PgStore {
    /// Adds the feed's line for a change to its transaction.
    pub(super) async fn note(
        &self,
        client: &impl GenericClient,
        session: &Uuid,
        kind: i16,
    ) -> Result<(), tokio_postgres::Error> {
        let statement = client.prepare_cached(NOTE).await?;
        client
            .query(&statement, &[session, &kind, &self.run])
            .await?;
        Ok(())
    }

    /// The feed's horizon now: where a reader starting now begins.
    pub(super) async fn horizon(client: &Client) -> Result<i64, tokio_postgres::Error> {
        Ok(client.query_one(HORIZON, &[]).await?.get(0))
    }

    /// Where following the feed began.
    pub fn feed_start(&self) -> FeedMark {
        FeedMark(self.start_mark)
    }

    /// Commits and purges since `since`, unless lines after it may have been pruned.
    pub async fn feed_since(
        &self,
        since: FeedMark,
    ) -> Result<Option<(Vec<FeedItem>, FeedMark)>, StoreError> {
        let client = self.connection().await?;
        let failed = |e| self.failed(e);
        let floor: i64 = client
            .query_one("SELECT mark FROM feed_floor", &[])
            .await
            .map_err(failed)?
            .get(0);
        if floor > since.0 {
            return Ok(None);
        }
        let until = Self::horizon(&client).await.map_err(failed)?;
        let rows = client
            .query(COMMITTED_SINCE, &[&since.0, &until])
            .await
            .map_err(failed)?;
        Ok(Some((
            rows.iter().filter_map(item_of).collect(),
            FeedMark(until),
        )))
    }

    /// Where this instance's live events go.
    pub fn live_outlet(&self) -> Option<LiveOutlet> {
        Some(self.live.clone())
    }

    /// Starts reading the feed from where it stood when the store opened, handing each
    /// batch of other instances' lines to `reader`; false if it is read already.
    pub fn follow(&self, reader: FeedReader) -> bool {
        if self.following.set(()).is_err() {
            return false;
        }
        let follower = Follower {
            config: self.config.clone(),
            run: self.run,
            mark: self.start_mark,
            reader,
            target: self.target.clone(),
        };
        tokio::spawn(follower.run(self.stop.clone()));
        true
    }
}

/// Sends live events in batches, in order, each batch one statement.
pub(super) fn start_publisher(pool: Pool, run: Uuid, stop: CancellationToken) -> LiveOutlet {
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel::<(Uuid, Vec<u8>)>();
    tokio::spawn(async move {
        while let Some(first) = tokio::select! {
            event = events.recv() => event,
            () = stop.cancelled() => None,
        } {
            let mut batch = vec![first];
            let until = tokio::time::Instant::now() + GATHER;
            while let Ok(Some(event)) = tokio::time::timeout_at(until, events.recv()).await {
                batch.push(event);
            }
            let (sessions, bodies): (Vec<Uuid>, Vec<Vec<u8>>) = batch.into_iter().unzip();
            let published = async {
                let client = pool.get().await.map_err(|e| e.to_string())?;
                client
                    .query(PUBLISH, &[&sessions, &bodies, &run])
                    .await
                    .map_err(|e| super::describe(&e))
            };
            if let Err(error) = published.await {
                tracing::debug!(%error, "live events could not be published to the other omnid");
            }
        }
    });
    LiveOutlet(sender)
}

/// Reads the feed for as long as the store is open, connecting again when cut off.
struct Follower {
    config: tokio_postgres::Config,
    run: Uuid,
    /// The horizon read up to.
    mark: i64,
    reader: FeedReader,
    target: String,
}

impl Follower {
    async fn run(mut self, stop: CancellationToken) {
        loop {
            let followed = tokio::select! {
                followed = self.follow_while_connected() => followed,
                () = stop.cancelled() => return,
            };
            if let Err(error) = followed {
                tracing::warn!(store = %self.target, %error, "cannot read the other omnid's changes; trying again");
            }
            tokio::select! {
                () = tokio::time::sleep(LOOK_EVERY) => {}
                () = stop.cancelled() => return,
            }
        }
    }

    async fn follow_while_connected(&mut self) -> Result<(), String> {
        let (client, woken) = listen(&self.config)
            .await
            .map_err(|e| super::describe(&e))?;
        let mut pruned = Instant::now();
        loop {
            let _ = tokio::time::timeout(LOOK_EVERY, woken.notified()).await;
            if client.is_closed() {
                return Err("the connection closed".into());
            }
            let items = self.read(&client).await.map_err(|e| super::describe(&e))?;
            (self.reader)(items, FeedMark(self.mark));
            if pruned.elapsed() > Duration::from_secs(60) {
                client
                    .execute(PRUNE, &[])
                    .await
                    .map_err(|e| super::describe(&e))?;
                pruned = Instant::now();
            }
        }
    }

    /// The lines up to the horizon now.
    async fn read(&mut self, client: &Client) -> Result<Vec<FeedItem>, tokio_postgres::Error> {
        let until = PgStore::horizon(client).await?;
        let rows = client
            .query(SINCE, &[&self.mark, &until, &self.run])
            .await?;
        self.mark = until;
        Ok(rows.iter().filter_map(item_of).collect())
    }
}

/// A line of the feed as read (`session, kind, body`).
fn item_of(row: &tokio_postgres::Row) -> Option<FeedItem> {
    let session: Uuid = row.get(0);
    match row.get::<_, i16>(1) {
        COMMITTED => Some(FeedItem::Committed { session }),
        PURGED => Some(FeedItem::Purged { session }),
        LIVE => Some(FeedItem::Live {
            session,
            body: row.get::<_, Option<Vec<u8>>>(2).unwrap_or_default(),
        }),
        _ => None,
    }
}

/// A connection of its own that listens on `omni_changes`: a notification (or the
/// connection's end) wakes the reader.
async fn listen(
    config: &tokio_postgres::Config,
) -> Result<(Client, Arc<Notify>), tokio_postgres::Error> {
    let (client, mut connection) = config.connect(NoTls).await?;
    let woken = Arc::new(Notify::new());
    let wake = woken.clone();
    tokio::spawn(async move {
        loop {
            match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(AsyncMessage::Notification(_))) => wake.notify_one(),
                Some(Ok(_)) => {}
                Some(Err(_)) | None => {
                    wake.notify_one();
                    return;
                }
            }
        }
    });
    client.batch_execute("LISTEN omni_changes").await?;
    Ok((client, woken))
}
