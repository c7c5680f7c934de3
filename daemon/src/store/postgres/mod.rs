//! The shared backend: one PostgreSQL database that any number of omnid use at once
//! (`--store-url`). Every change is one transaction, committed (with PostgreSQL's
//! `synchronous_commit`, its default) before the caller hears; the records are the same
//! bytes the embedded store keeps. Connections come from a pool; a database that is down
//! fails each request quickly with an error naming it (never its password), and the pool
//! connects again by itself once it is back. The data directory still holds what each
//! instance keeps for itself (the search index, diagnostic records).

mod diagnostics;
mod feed;
mod lease;
mod read;
mod schema;
mod write;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use deadpool_postgres::Hook;
use deadpool_postgres::{
    ClientWrapper, HookError, Manager, ManagerConfig, Pool, PoolError, RecyclingMethod, Runtime,
};
use tokio_postgres::NoTls;

use super::health::{Failing, Health};
use super::observe::{Observer, Observers};
use super::{LiveOutlet, SharedStore, StoreError};

/// How long a request waits for a connection (or to make one) before it fails.
const PATIENCE: Duration = Duration::from_secs(5);

/// Connections each omnid keeps to the database at most.
const POOL_SIZE: usize = 16;

/// Where the shared store is and how to log in.
#[derive(Clone)]
pub struct PgTarget {
    /// The connection settings (the password among them, if any).
    pub config: tokio_postgres::Config,
    /// The URL without its password, for messages.
    pub shown: String,
}

impl PgTarget {
    /// The connection settings of a configured shared store.
    pub fn of(shared: &SharedStore) -> Result<Self, StoreError> {
        let mut config: tokio_postgres::Config =
            shared.url.parse().map_err(|_| StoreError::Database {
                store: shared.shown.clone(),
                message: "not a PostgreSQL URL: write postgres://USER@HOST:PORT/DATABASE".into(),
            })?;
        if let Some(password) = &shared.password {
            config.password(password);
        }
        Ok(Self {
            config,
            shown: shared.shown.clone(),
        })
    }
}

/// The PostgreSQL database and the bookkeeping around it.
pub struct PgStore {
    pool: Pool,
    /// The database, as messages name it.
    target: String,
    /// This instance's own files (the search index, diagnostic records).
    dir: PathBuf,
    health: Health,
    commits: AtomicU64,
    observers: Observers,
    /// This instance's name, as the leases it holds name it.
    instance: String,
    /// How long a lease lasts unless renewed.
    lease: Duration,
    /// This run of omnid, as the feed's lines it wrote name it (`feed.rs`).
    run: uuid::Uuid,
    /// Where this instance's live events go.
    live: LiveOutlet,
    /// The connection settings, for the feed's listening connection.
    config: tokio_postgres::Config,
    /// The feed's horizon when the store opened: where following it begins.
    start_mark: i64,
    /// Set once the feed is followed.
    following: std::sync::OnceLock<()>,
    /// Ends the feed's tasks when the store closes.
    stop: tokio_util::sync::CancellationToken,
}

/// A pooled connection.
type Connection = deadpool_postgres::Object;

impl PgStore {
    /// Connects to the database and brings its schema up to date; an unreachable database
    /// or a wrong password fails here, naming the database.
    pub async fn open(shared: &SharedStore, dir: &Path) -> Result<Self, StoreError> {
        let target = PgTarget::of(shared)?;
        let mut config = target.config;
        config.connect_timeout(PATIENCE);
        config.application_name("omnid");
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .post_create(Hook::async_fn(|client, _| Box::pin(prepare(client))))
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(PATIENCE))
            .create_timeout(Some(PATIENCE))
            .build()
            .map_err(|e| StoreError::Database {
                store: target.shown.clone(),
                message: e.to_string(),
            })?;
        let run = uuid::Uuid::new_v4();
        let stop = tokio_util::sync::CancellationToken::new();
        let mut store = Self {
            live: feed::start_publisher(pool.clone(), run, stop.clone()),
            pool,
            target: target.shown,
            dir: dir.to_path_buf(),
            health: Health::default(),
            commits: AtomicU64::new(0),
            observers: Observers::default(),
            instance: shared.instance.clone(),
            lease: shared.lease,
            run,
            config,
            start_mark: 0,
            following: std::sync::OnceLock::new(),
            stop,
        };
        let mut client = store.connection().await?;
        store.migrate(&mut client).await?;
        // Made before the schema was, this connection prepares its statements now.
        let _ = prepare(&mut client).await;
        store.let_go_of_left_behind(&client).await?;
        store.start_mark = Self::horizon(&client).await.map_err(|e| store.failed(e))?;
        drop(client);
        Ok(store)
    }

    /// A connection from the pool.
    async fn connection(&self) -> Result<Connection, StoreError> {
        self.pool.get().await.map_err(|error| match error {
            PoolError::Backend(error) => self.failed(error),
            other => self.unavailable(other.to_string()),
        })
    }

    /// Notes a failure of the database and names it.
    fn failed(&self, error: tokio_postgres::Error) -> StoreError {
        self.unavailable(describe(&error))
    }

    fn unavailable(&self, message: String) -> StoreError {
        self.health.failed(message.clone(), false);
        StoreError::Database {
            store: self.target.clone(),
            message,
        }
    }

    /// Notes a change committed: durable, so the observer hears of it at once.
    async fn committed(&self, session: uuid::Uuid, nodes: &[crate::model::NodeRecord]) {
        self.health.recovered();
        self.commits.fetch_add(1, Ordering::Relaxed);
        self.observers.applied(session, nodes);
        let taken = self.observers.before_sync();
        self.observers.after_sync(taken, true).await;
    }

    /// The database's URL without its password.
    pub fn shown(&self) -> &str {
        &self.target
    }

    /// Nothing to stamp: the database keeps its own state.
    pub fn mark_closed_cleanly(&self) {}

    /// Changes committed since the store was opened.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    /// Sets the one observer of committed changes.
    pub fn observe(&self, observer: Observer) -> bool {
        self.observers.set(observer).is_ok()
    }

    /// This instance's own data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Each commit is its own sync.
    pub fn sync_runs(&self) -> u64 {
        self.commits()
    }

    /// Whether the database failed last time it was asked, since when and why.
    pub fn health(&self) -> Option<Failing> {
        self.health.get()
    }

    /// Every commit is durable when it returns: nothing to wait for.
    pub async fn sync(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Closes the pool's connections and ends the feed's tasks.
    pub fn close(self) -> Result<(), StoreError> {
        self.stop.cancel();
        self.pool.close();
        Ok(())
    }
}

/// The statements of every change, in the order a change sends them.
const PREPARED: [&str; 7] = [
    lease::RENEW,
    lease::TAKE_FOR_ONE,
    write::NODE,
    write::MOVE,
    write::SESSION,
    write::CHAIN,
    feed::NOTE,
];

/// Prepares a new connection's statements, so that a change's go out at once, in the order
/// written (the lease's first: two changes of one session meet there, before anything
/// else). One that cannot be prepared yet (the schema is not made) is prepared when used.
async fn prepare(client: &mut ClientWrapper) -> Result<(), HookError> {
    for sql in PREPARED {
        if client.prepare_cached(sql).await.is_err() {
            break;
        }
    }
    Ok(())
}

/// What the database said (its message and detail), or why it could not be reached
/// (the error and its causes).
fn describe(error: &tokio_postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return match db.detail() {
            Some(detail) => format!("{} ({detail})", db.message()),
            None => db.message().to_string(),
        };
    }
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// An i64 column from a count or number the store keeps as u64.
fn int(number: u64) -> i64 {
    i64::try_from(number).unwrap_or(i64::MAX)
}
