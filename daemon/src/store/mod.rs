//! The store: where sessions, nodes, moves and the indexes beside them are kept, behind one
//! type, [`Store`], whatever holds them. Each backend is a folder of its own (`sled/`, the
//! embedded default); nothing outside this module knows which one runs. What a backend
//! promises: every [`Change`] is one atomic commit, durable when [`Store::commit`]
//! returns; a reader never sees a record that counts what is not there; who observes
//! durable changes (the search index) hears of each once it is durable.

mod activity;
mod copy;
mod encoding;
mod error;
mod feed;
mod health;
mod lease;
mod observe;
mod postgres;
mod sled;
mod types;

use std::path::Path;

use uuid::Uuid;

pub use activity::ByActivity;
pub use copy::{Copied, copy};
pub use error::StoreError;
pub use feed::{FeedItem, FeedMark, FeedReader, LiveOutlet};
pub use health::Failing;
pub use lease::{Fence, Lease};
pub use observe::{Applied, Observer};
pub use types::{
    ChainHash, Change, ContentHash, Import, Link, Purged, Recorded, SharedDiagnostic, StoredSession,
};

use crate::model::{MoveRecord, NodeId, NodeRecord, SessionRecord};
use postgres::PgStore;
use sled::SledStore;

/// How the store behaves.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Writes that would leave less than this free on the data directory's file system
    /// are refused.
    pub min_free_bytes: u64,
    /// The most memory the embedded store keeps for pages it has read or written
    /// (`store.cache_mb`).
    pub cache_bytes: u64,
    /// The shared database to keep sessions in instead (`store_url`), if any.
    pub shared: Option<SharedStore>,
}

/// A shared PostgreSQL store: where it is and how to log in.
#[derive(Clone, PartialEq, Eq)]
pub struct SharedStore {
    /// Its URL as given (a password in it included): only for connecting.
    pub url: String,
    /// Its password, from `store_password_file`.
    pub password: Option<String>,
    /// Its URL with any password replaced, for messages.
    pub shown: String,
    /// This omnid's name among those sharing it (`instance_name`): who holds a lease.
    pub instance: String,
    /// How long a session's lease lasts unless renewed (`store_lease_secs`).
    pub lease: std::time::Duration,
}

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

/// The default free-space reserve: room for the embedded store to compact and snapshot.
pub const DEFAULT_MIN_FREE_BYTES: u64 = 64 * 1024 * 1024;

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            min_free_bytes: DEFAULT_MIN_FREE_BYTES,
            cache_bytes: sled::SLED_CACHE_BYTES,
            shared: None,
        }
    }
}

/// The store the daemon runs on.
pub struct Store {
    backend: Backend,
}

/// Which backend holds the store.
#[allow(clippy::large_enum_variant)] // one per daemon: no box on every call
enum Backend {
    /// sled in the data directory.
    Sled(SledStore),
    /// A PostgreSQL database any number of omnid share.
    Postgres(PgStore),
}

/// Forwards each method to the backend that runs: `fn`, a method of the store's own
/// (counters, health) on either side; `local fn`, one sled answers at once and a
/// database over the network (async); `async fn`, one async on either side.
macro_rules! forward {
    ($($(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(&self $(, $arg: $ty)*) -> $ret {
            match &self.backend {
                Backend::Sled(store) => store.$name($($arg),*),
                Backend::Postgres(store) => store.$name($($arg),*),
            }
        }
    )*};
    ($($(#[$doc:meta])* local fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {$(
        $(#[$doc])*
        pub async fn $name(&self $(, $arg: $ty)*) -> $ret {
            match &self.backend {
                Backend::Sled(store) => store.$name($($arg),*),
                Backend::Postgres(store) => store.$name($($arg),*).await,
            }
        }
    )*};
    ($($(#[$doc:meta])* async fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty;)*) => {$(
        $(#[$doc])*
        pub async fn $name(&self $(, $arg: $ty)*) -> $ret {
            match &self.backend {
                Backend::Sled(store) => store.$name($($arg),*).await,
                Backend::Postgres(store) => store.$name($($arg),*).await,
            }
        }
    )*};
}

impl Store {
    /// Opens (or creates) the embedded store in `dir` with the default options.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        Self::open_with(dir, StoreOptions::default())
    }

    /// Opens (or creates) the embedded store in `dir`. [`Store::commit`] and
    /// [`Store::sync`] need a tokio runtime (the sync runs on its blocking pool).
    pub fn open_with(dir: &Path, options: StoreOptions) -> Result<Self, StoreError> {
        let backend = Backend::Sled(SledStore::open_with(dir, options)?);
        Ok(Self { backend })
    }

    /// Opens the store the options name: the shared database (connecting, and bringing
    /// its schema up to date), else the embedded store in `dir`.
    pub async fn open_configured(dir: &Path, options: StoreOptions) -> Result<Self, StoreError> {
        let backend = match &options.shared {
            Some(shared) => Backend::Postgres(PgStore::open(shared, dir).await?),
            None => Backend::Sled(SledStore::open_with(dir, options)?),
        };
        Ok(Self { backend })
    }

    /// Whether other omnid may change the store (a shared database) while this one runs.
    pub fn is_shared(&self) -> bool {
        matches!(self.backend, Backend::Postgres(_))
    }

    /// Which backend runs and where (`embedded` or the shared database's URL, without
    /// its password), for `status`.
    pub fn kind(&self) -> (&'static str, Option<&str>) {
        match &self.backend {
            Backend::Sled(_) => ("embedded", None),
            Backend::Postgres(store) => ("postgres", Some(store.shown())),
        }
    }

    /// Closes the store, returning once it may be opened again.
    pub fn close(self) -> Result<(), StoreError> {
        match self.backend {
            Backend::Sled(store) => store.close(),
            Backend::Postgres(store) => store.close(),
        }
    }

    /// Sessions by last activity, newest first, starting strictly before `before` (an
    /// entry's (time, id) place; all when `None`): (last activity, id) pairs. Entries
    /// whose time is not the record's (left by a crash) may appear: check the record's
    /// `updated_at_ms`.
    pub fn by_activity(&self, before: Option<(u64, Uuid)>) -> ByActivity<'_> {
        ByActivity::new(self, before)
    }

    /// Takes the session's lease for a change that lasts (a turn, a compaction), so that
    /// no other instance changes the session until it is let go; refused while another
    /// holds it. `None`: the store is this instance's alone, and needs no lease.
    pub async fn hold(&self, session: &Uuid) -> Result<Option<Lease>, StoreError> {
        match &self.backend {
            Backend::Sled(_) => Ok(None),
            Backend::Postgres(store) => store.hold(session).await,
        }
    }

    /// Where this instance's live events go to the other instances sharing the store;
    /// `None` when there are none (the embedded store).
    pub fn live_outlet(&self) -> Option<LiveOutlet> {
        match &self.backend {
            Backend::Sled(_) => None,
            Backend::Postgres(store) => store.live_outlet(),
        }
    }

    /// Follows what other instances sharing the store do (see `feed.rs`), handing it to
    /// `reader`; false on the embedded store, which no other instance changes (or when
    /// followed already).
    pub fn follow(&self, reader: FeedReader) -> bool {
        match &self.backend {
            Backend::Sled(_) => false,
            Backend::Postgres(store) => store.follow(reader),
        }
    }

    /// Keeps a diagnostic record where every instance reads it (a shared store); the
    /// embedded store keeps none (the log directory holds them).
    pub async fn put_diagnostic(&self, record: &SharedDiagnostic) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Sled(_) => Ok(()),
            Backend::Postgres(store) => store.put_diagnostic(record).await,
        }
    }

    /// The diagnostic records a shared store keeps, of one subject or all, and (`prefix`)
    /// whose id begins so; `None` on the embedded store, which keeps none.
    pub async fn diagnostics(
        &self,
        subject: Option<&str>,
        prefix: Option<&str>,
    ) -> Result<Option<Vec<SharedDiagnostic>>, StoreError> {
        match &self.backend {
            Backend::Sled(_) => Ok(None),
            Backend::Postgres(store) => store.diagnostics(subject, prefix).await.map(Some),
        }
    }

    /// Where following the feed began (the feed's horizon when the store opened); `None`
    /// on the embedded store.
    pub fn feed_start(&self) -> Option<FeedMark> {
        match &self.backend {
            Backend::Sled(_) => None,
            Backend::Postgres(store) => Some(store.feed_start()),
        }
    }

    /// The feed's commits and purges (of every instance, this one's too) from `since` up to
    /// now, and the mark they reach; `None` on the embedded store, or when lines after
    /// `since` may have been pruned (then only a whole catch-up will do).
    pub async fn feed_since(
        &self,
        since: FeedMark,
    ) -> Result<Option<(Vec<FeedItem>, FeedMark)>, StoreError> {
        match &self.backend {
            Backend::Sled(_) => Ok(None),
            Backend::Postgres(store) => store.feed_since(since).await,
        }
    }

    /// Lets a lease go: any instance may take the session at once.
    pub async fn release(&self, lease: Lease) {
        match &self.backend {
            Backend::Sled(_) => drop(lease),
            Backend::Postgres(store) => store.release(lease).await,
        }
    }

    forward! {
        /// Stamps the store as shut down cleanly, once its last change is durable and
        /// nothing writes any more.
        fn mark_closed_cleanly(&self) -> ();
        /// How many changes have been applied since the store was opened.
        fn commits(&self) -> u64;
        /// Sets the one observer told which sessions changed, once their changes are
        /// durable. Returns false (and keeps the first) when one is already set.
        fn observe(&self, observer: Observer) -> bool;
        /// The data directory the store keeps its files in.
        fn dir(&self) -> &Path;
        /// How many syncs have run since the store was opened.
        fn sync_runs(&self) -> u64;
        /// Whether writes fail now, since when and why.
        fn health(&self) -> Option<Failing>;
    }

    forward! {
        /// Applies a change without waiting for durability: use [`Store::commit`] unless
        /// many changes are followed by one [`Store::sync`].
        local fn apply(&self, change: &Change<'_>) -> Result<(), StoreError>;
        /// Bytes the store occupies on disk.
        local fn size_on_disk(&self) -> u64;
        /// A session's record, if it exists.
        local fn session(&self, id: &Uuid) -> Result<Option<SessionRecord>, StoreError>;
        /// Whether the session's record was written before usage was kept.
        local fn session_predates_usage(&self, id: &Uuid) -> Result<bool, StoreError>;
        /// Every session record, decoded or why it cannot be.
        local fn sessions(&self) -> Result<Vec<StoredSession>, StoreError>;
        /// Every node of a session, in order.
        local fn nodes(&self, session: &Uuid) -> Result<Vec<NodeRecord>, StoreError>;
        /// Every node of a session that can be read, and what is wrong with those that
        /// cannot.
        local fn readable_nodes(
            &self,
            session: &Uuid
        ) -> Result<(Vec<NodeRecord>, Vec<String>), StoreError>;
        /// One node of a session.
        local fn node(&self, session: &Uuid, id: NodeId) -> Result<NodeRecord, StoreError>;
        /// Whether the store holds the node and the move (0: nothing to hold).
        local fn holds(&self, session: &Uuid, node: NodeId, mv: u64) -> Result<(bool, bool), StoreError>;
        /// One move of a session's log, if it exists.
        local fn move_record(&self, session: &Uuid, seq: u64) -> Result<Option<MoveRecord>, StoreError>;
        /// A session's move log, in order.
        local fn moves(&self, session: &Uuid) -> Result<Vec<MoveRecord>, StoreError>;
        /// The sessions whose purge began and is not finished everywhere yet.
        local fn unfinished_purges(&self) -> Vec<Uuid>;
        /// Notes that a session's purge is finished everywhere.
        local fn purge_finished(&self, id: &Uuid) -> Result<(), StoreError>;
        /// The session and node where a recorded conversation's turn is, if it is.
        local fn chain(&self, hash: &ChainHash) -> Result<Option<(Uuid, NodeId)>, StoreError>;
        /// Where a session recorded from the proxy came from.
        local fn origin(&self, session: &Uuid) -> Option<String>;
        /// Every node's parent and role, without reading the nodes.
        local fn links(&self, session: &Uuid, count: u64) -> Result<Vec<Link>, StoreError>;
        /// The session an earlier import of this content created, if any.
        local fn imported(&self, hash: &ContentHash) -> Result<Option<Uuid>, StoreError>;
        /// How many sessions the store holds.
        local fn session_count(&self) -> usize;
        /// Every chain entry: a recorded conversation's hash, its session and node.
        local fn chain_entries(&self) -> Result<Vec<(ChainHash, Uuid, NodeId)>, StoreError>;
        /// Every import's content hash and the session it made.
        local fn import_entries(&self) -> Result<Vec<(ContentHash, Uuid)>, StoreError>;
    }

    forward! {
        /// Applies a change and waits until it is durable.
        async fn commit(&self, change: &Change<'_>) -> Result<(), StoreError>;
        /// Commits a change that creates a session, counting it.
        async fn commit_new(&self, change: &Change<'_>) -> Result<(), StoreError>;
        /// Waits until every change applied so far is durable.
        async fn sync(&self) -> Result<(), StoreError>;
        /// Removes a session and everything of it; what was removed, if it existed.
        async fn purge(&self, id: &Uuid) -> Result<Option<Purged>, StoreError>;
        /// Writes a whole session (an import, or a recorded conversation) in one commit.
        async fn import(&self, import: &Import<'_>) -> Result<(), StoreError>;
    }
}

#[cfg(test)]
impl Store {
    /// Overwrites a session's stored record with `bytes`, as damage would (for tests
    /// above the store that need a record it cannot read).
    pub fn damage_record(&self, id: &Uuid, bytes: &[u8]) {
        match &self.backend {
            Backend::Sled(store) => store.damage_record(id, bytes),
            Backend::Postgres(_) => unimplemented!("the tests damage embedded stores only"),
        }
    }
}
