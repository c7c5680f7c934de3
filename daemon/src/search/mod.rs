//! Full-text search over every node of every session, every branch included: a tantivy
//! index in `DATA_DIR/search`, fed off the commit path (the store tells it which sessions
//! changed once their changes are durable; one indexer thread batches them), rebuilt from
//! the store when missing, damaged or of another version, and caught up at every start.
//! The store stays the truth; the index only finds.

mod bounds;
mod catch_up;
mod handed;
mod indexer;
mod open;
mod query;
mod schema;

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use uuid::Uuid;

pub use bounds::{MAX_QUERY_CHARS, MAX_QUERY_NESTING, QueryRefused};
pub use open::index_dir;
pub use query::{Hit, Query};
pub use schema::INDEX_VERSION;

use crate::model::SessionRecord;
use tokio::runtime::Handle;

use crate::store::{Applied, FeedMark, Store, StoreError};

/// Whether a session's nodes may be found: never one in the trash, an archived one only
/// when asked for.
pub fn searchable(record: &SessionRecord, archived_too: bool) -> bool {
    record.deleted_at_ms.is_none() && (archived_too || record.archived_at_ms.is_none())
}

/// What can go wrong with the index.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// tantivy failed.
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// A file of the index could not be written or read.
    #[error("search index: {0}")]
    Io(#[from] std::io::Error),
    /// The store could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The query is refused before it is parsed (too long or nested too deep).
    #[error(transparent)]
    Refused(#[from] QueryRefused),
    /// The indexer thread is gone (the daemon is stopping).
    #[error("the search indexer has stopped")]
    Stopped,
    /// The index could not be opened (why); the next start makes a new one.
    #[error("the search index could not be opened: {0}")]
    Unavailable(String),
    /// Started outside the daemon's runtime, which the indexer reads the store on.
    #[error("the search index must be started on the daemon's runtime")]
    NoRuntime,
}

impl From<tantivy::directory::error::OpenDirectoryError> for SearchError {
    fn from(error: tantivy::directory::error::OpenDirectoryError) -> Self {
        SearchError::Index(error.into())
    }
}

/// What the indexer is asked.
enum Job {
    /// Durable changes were handed over (`Shared::handed`): index the nodes they gained.
    Handed,
    /// Index this session again, whole (an imported session), then answer.
    Whole(Uuid, Sender<()>),
    /// Remove this session's documents from the files for good, then answer.
    Forget(Uuid, Sender<()>),
    /// A search failed inside tantivy: verify every file of the index and rebuild it from
    /// the store when one is damaged.
    Verify,
    /// Answer once everything asked before is committed.
    Flush(Sender<()>),
    /// The shared store's feed was heard up to here.
    FeedMark(FeedMark),
    /// The same, for a caller on the async runtime (a search).
    CatchUp(tokio::sync::oneshot::Sender<()>),
    /// Commit everything asked before, let go of the store, end the indexer, then answer.
    Stop(Sender<()>),
}

/// What the handle and the indexer share.
struct Shared {
    store: Arc<Store>,
    /// The index, once the indexer's thread has opened it (see `open.rs`).
    opening: open::Opening,
    /// Set once the indexer has caught up with the store after the start.
    complete: AtomicBool,
    /// Index commits since the start.
    commits: AtomicU64,
    /// Durable changes waiting for the next batch (the store's observer holds it too, so
    /// it is apart: the observer must not hold the store it observes).
    handed: Arc<handed::Handed>,
}

/// Hands durable changes to the indexer for its next batch, waking it only when it had
/// none waiting.
fn hand_over(handed: &handed::Handed, jobs: &Mutex<Sender<Job>>, changed: Vec<Applied>) {
    if handed.hand_over(changed) {
        let jobs = jobs.lock().unwrap_or_else(|e| e.into_inner());
        let _ = jobs.send(Job::Handed);
    }
}

/// The search index: queries, and what purge and import ask of it.
pub struct SearchIndex {
    shared: Arc<Shared>,
    jobs: Mutex<Sender<Job>>,
}

impl SearchIndex {
    /// Starts the indexer, which opens (or rebuilds) the index in `data_dir/search` on its
    /// own thread, catches up with `store` and then follows its durable changes (heard
    /// from now on, so none made while it opens is missed).
    pub fn start(data_dir: &Path, store: Arc<Store>) -> Result<Arc<Self>, SearchError> {
        let runtime = Handle::try_current().map_err(|_| SearchError::NoRuntime)?;
        let shared = Arc::new(Shared {
            store: store.clone(),
            opening: open::Opening::default(),
            complete: AtomicBool::new(false),
            commits: AtomicU64::new(0),
            handed: Arc::default(),
        });
        let (sender, receiver) = channel();
        let observer = Mutex::new(sender.clone());
        let handed_to = shared.handed.clone();
        let observing = store.observe(Box::new(move |changed: Vec<Applied>| {
            hand_over(&handed_to, &observer, changed);
        }));
        if !observing {
            tracing::warn!("the store already has an observer; search follows it only at starts");
        }
        let (dir, indexing) = (index_dir(data_dir), shared.clone());
        std::thread::Builder::new()
            .name("omni-search".into())
            .spawn(move || {
                // Only the indexer holds the shared state (and through it the store) on this
                // thread: it lets go before it answers a stop, so the store can close and
                // write what it acknowledged. A failure is told through a weak handle.
                let told = Arc::downgrade(&indexing);
                // tantivy panics on some damaged files: searches must hear of it, not wait.
                let open = move || indexer::Indexer::open(indexing, &dir, runtime);
                let why = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(open)) {
                    Ok(Ok(indexer)) => return indexer.run(receiver),
                    Ok(Err(error)) => error.to_string(),
                    Err(_) => "opening it failed inside tantivy".to_string(),
                };
                tracing::error!(error = %why, "the search index cannot be opened; search is unavailable until the next start");
                if let Some(shared) = told.upgrade() {
                    shared.opening.settle(Err(why));
                }
            })?;
        Ok(Arc::new(Self {
            shared,
            jobs: Mutex::new(sender),
        }))
    }

    fn ask(&self, job: impl FnOnce(Sender<()>) -> Job) -> Result<(), SearchError> {
        let (done, answered) = channel();
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job(done))
            .map_err(|_| SearchError::Stopped)?;
        answered.recv().map_err(|_| SearchError::Stopped)
    }

    /// Removes every document of a session from the index and from its files (the
    /// segments are merged and the old files removed); returns once that is done. For
    /// purge: call it after the session is gone from the store.
    pub fn forget_session(&self, id: Uuid) -> Result<(), SearchError> {
        self.ask(|done| Job::Forget(id, done))
    }

    /// Indexes a session again, whole, and returns once it is searchable: for a session
    /// written at once (an import).
    pub fn index_session(&self, id: Uuid) -> Result<(), SearchError> {
        self.ask(|done| Job::Whole(id, done))
    }

    /// Indexes what another instance sharing the store committed to a session (read from
    /// the store), with the next batch.
    pub fn changed_elsewhere(&self, session: Uuid) {
        let changed = vec![Applied {
            session,
            nodes: Vec::new(),
        }];
        hand_over(&self.shared.handed, &self.jobs, changed);
    }

    /// Notes that the shared store's feed was heard up to `mark` (every change before it
    /// was handed over): kept with the index's next commit, where a restart catches up from.
    pub fn followed_to(&self, mark: FeedMark) {
        let jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let _ = jobs.send(Job::FeedMark(mark));
    }

    /// Commits what the indexer was told of, ends it and returns once it has let go of the
    /// store: at shutdown, so the store closes (its last acknowledged counts written) when
    /// the daemon lets go of it too.
    pub fn stop(&self) -> Result<(), SearchError> {
        match self.ask(Job::Stop) {
            // An index that never opened has nothing to commit (its failure was logged).
            Err(SearchError::Stopped) if self.shared.opening.failed() => Ok(()),
            stopped => stopped,
        }
    }

    /// Returns once every change the indexer was told of before is searchable.
    pub fn flush(&self) -> Result<(), SearchError> {
        self.ask(Job::Flush)
    }

    /// Waits up to `patience` until every change the indexer was told of before is
    /// searchable: what a search needs to find every commit acknowledged before it arrived.
    /// Whether it got there in time.
    pub async fn caught_up_within(&self, patience: Duration) -> bool {
        let (done, answered) = tokio::sync::oneshot::channel();
        let asked = self
            .jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(Job::CatchUp(done));
        asked.is_ok() && matches!(tokio::time::timeout(patience, answered).await, Ok(Ok(())))
    }

    /// Whether the index has caught up with the store since the start (until then a search
    /// may miss what the store holds).
    pub fn complete(&self) -> bool {
        self.shared.complete.load(Ordering::Acquire)
    }

    /// Index commits since the start.
    pub fn commits(&self) -> u64 {
        self.shared.commits.load(Ordering::Relaxed)
    }

    /// The best hits for `query`, best first, of the sessions `keep` admits.
    pub fn search(
        &self,
        query: &Query,
        keep: impl FnMut(&Uuid) -> bool,
    ) -> Result<Vec<Hit>, SearchError> {
        let open = self
            .shared
            .opening
            .wait()
            .map_err(SearchError::Unavailable)?;
        // tantivy panics on some damaged files: that is damage too, not the daemon's end.
        let run = std::panic::AssertUnwindSafe(|| query::run(&open, query, keep));
        let found = std::panic::catch_unwind(run).unwrap_or_else(|panic| {
            let said = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(SearchError::Index(tantivy::TantivyError::InternalError(
                format!("reading the index failed: {said}"),
            )))
        });
        if let Err(SearchError::Index(error)) = &found {
            tracing::warn!(%error, "a search failed inside the index; verifying it");
            let _ = self
                .jobs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .send(Job::Verify);
        }
        found
    }
}

#[cfg(test)]
mod tests;
