//! The indexer: one thread owning the index's writer. It catches up with the store first
//! (`catch_up.rs`: from a shared store's feed, or every session whose indexed count differs
//! from its record's), then takes the sessions
//! changed and the nodes each gained (sent once their changes are durable), waits a moment
//! for more, indexes those nodes and commits once per batch. The store is the truth: a
//! session is indexed from its marker's count to its record's, so a crash between a store
//! commit and an index commit is caught up at the next start. Nodes handed over are indexed
//! as they are when they follow what is indexed; otherwise (changes heard out of order, a
//! session purged meanwhile, a change that added none) the session is read from the store.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tantivy::IndexWriter;
use uuid::Uuid;

use super::open::Open;
use super::{Job, SearchError, Shared};
use crate::model::NodeRecord;
use tokio::runtime::Handle;

use crate::store::{Applied, FeedMark};

/// How long a batch collects changes before it is indexed and committed: one commit a
/// second at most. Each commit costs tantivy a fresh segment (its term table allocated and
/// zeroed, several MB) and later merges: at 500 new sessions a second, committing every
/// 100 ms spent a fifth of omnid's CPU merging, and a send on a long session, slower, paid
/// for more commits than a short one's. A search still sees everything acknowledged before
/// it: it asks for the batch at once, as an import and a purge do.
const BATCH_WAIT: Duration = Duration::from_secs(1);

/// Sessions whose indexed count the indexer remembers past a commit: once committed, a
/// count is also in the session's marker, so beyond this many they are forgotten (a busy
/// proxy records hundreds of new sessions a second; remembering every one grew without end).
const COUNTS_KEPT: usize = 10_000;

/// Past this many nodes to take in, a session's nodes are read at once, not one by one.
const WHOLE_READ: u64 = 16;

/// The writer's memory budget (tantivy's minimum is 15 MB).
pub const WRITER_BUDGET: usize = 16_000_000;

/// The indexer's state: the writer and the count of indexed nodes of every session it
/// wrote since it started (its markers may not be committed yet).
pub struct Indexer {
    pub(super) shared: Arc<Shared>,
    /// The index, its reader and fields.
    pub(super) open: Arc<Open>,
    /// The daemon's runtime, which the store's reads run on (the indexer is a thread of
    /// its own).
    runtime: Handle,
    writer: IndexWriter,
    counts: HashMap<Uuid, u64>,
    /// Sessions purged since the start: nodes heard of for them are never indexed as
    /// handed over (the store says whether the session is still there).
    pub(super) forgotten: HashSet<Uuid>,
    /// Where the shared store's feed was heard up to: kept with each commit
    /// (`catch_up.rs`).
    pub(super) feed_mark: Option<FeedMark>,
}

impl Indexer {
    /// Opens the index in `dir` (see `open.rs`) and its writer, and lets searches use it.
    pub fn open(shared: Arc<Shared>, dir: &Path, runtime: Handle) -> Result<Self, SearchError> {
        let open = Arc::new(Open::at(dir)?);
        let writer = open.index.writer_with_num_threads(1, WRITER_BUDGET)?;
        shared.opening.settle(Ok(open.clone()));
        Ok(Self {
            shared,
            open,
            runtime,
            writer,
            counts: HashMap::new(),
            forgotten: HashSet::new(),
            feed_mark: None,
        })
    }

    /// Waits for a read of the store.
    pub(super) fn read<T>(&self, read: impl Future<Output = T>) -> T {
        self.runtime.block_on(read)
    }

    /// Catches up with the store, then indexes changes as they come until every sender
    /// is gone.
    pub fn run(mut self, jobs: Receiver<Job>) {
        self.verified_and_caught_up();
        let mut stopped = None;
        while let Ok(first) = jobs.recv() {
            let mut batch = Batch::default();
            batch.add(first);
            let deadline = Instant::now() + BATCH_WAIT;
            // A batch waits a moment for more changes, unless someone waits for it (a
            // search that must see what was acknowledged before it, an import, a purge).
            while batch.stop.is_none() && batch.waiting.is_empty() && batch.catching_up.is_empty() {
                let left = deadline.saturating_duration_since(Instant::now());
                match jobs.recv_timeout(left) {
                    Ok(job) => batch.add(job),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            // Everything handed over until now, so also before whoever waits asked.
            batch.take_handed(self.shared.handed.take());
            stopped = batch.stop.take();
            if batch.verify {
                self.verified_and_caught_up();
            }
            if let Err(error) = self.apply(batch) {
                tracing::error!(%error, "the search index could not be updated; the next start catches up");
            }
            if stopped.is_some() {
                break;
            }
        }
        let Indexer { writer, shared, .. } = self;
        let _ = writer.wait_merging_threads();
        drop(shared);
        if let Some(done) = stopped {
            let _ = done.send(());
        }
    }

    /// Verifies every file of the index (each carries a checksum), rebuilds it from the
    /// store when one is damaged, and catches up; searches say they may be incomplete
    /// until then.
    fn verified_and_caught_up(&mut self) {
        self.shared.complete.store(false, Ordering::Release);
        if let Some(damage) = self.damage() {
            tracing::warn!(
                damage,
                "the search index is damaged; rebuilding it from the store"
            );
            if let Err(error) = self.empty() {
                tracing::error!(%error, "the damaged search index could not be emptied");
            }
        }
        if let Err(error) = self.catch_up() {
            tracing::error!(%error, "the search index could not catch up with the store");
        }
        self.shared.complete.store(true, Ordering::Release);
    }

    /// What is damaged in the index's files, if anything.
    fn damage(&self) -> Option<String> {
        match self.open.index.validate_checksum() {
            Ok(damaged) if damaged.is_empty() => None,
            Ok(damaged) => {
                let mut names: Vec<String> =
                    damaged.iter().map(|p| p.display().to_string()).collect();
                names.sort();
                Some(format!("{} fail their checksum", names.join(", ")))
            }
            Err(error) => Some(format!("its files cannot be verified: {error}")),
        }
    }

    /// Drops every segment (without reading them) and the files they used, so the catch-up
    /// indexes every session again.
    fn empty(&mut self) -> Result<(), SearchError> {
        self.writer.delete_all_documents()?;
        self.counts.clear();
        // An empty index follows nothing: the catch-up is whole.
        self.feed_mark = None;
        self.commit()?;
        self.writer.garbage_collect_files().wait()?;
        Ok(())
    }

    fn apply(&mut self, batch: Batch) -> Result<(), SearchError> {
        // Kept with this batch's commit (if it makes one) or the next.
        self.feed_mark = self.feed_mark.max(batch.mark);
        for session in &batch.forget {
            self.delete(session);
            self.forgotten.insert(*session);
        }
        let changed = !batch.changed.is_empty();
        for (session, gained) in batch.changed {
            if batch.forget.contains(&session) {
                continue;
            }
            if batch.whole.contains(&session) {
                self.index_session(&session, true)?;
            } else {
                self.index_gained(&session, gained)?;
            }
        }
        if changed || !batch.forget.is_empty() {
            self.commit()?;
        }
        if !batch.forget.is_empty() {
            self.compact()?;
        }
        for done in batch.waiting {
            let _ = done.send(());
        }
        for done in batch.catching_up {
            let _ = done.send(());
        }
        Ok(())
    }

    /// Indexes the nodes a session gained since its marker (all of them with `whole`, or
    /// when the index holds more than the store); forgets a session the store no longer
    /// has. Whether anything changed.
    pub(super) fn index_session(&mut self, id: &Uuid, whole: bool) -> Result<bool, SearchError> {
        let Some(record) = self.read(self.shared.store.session(id)).ok().flatten() else {
            let known = self.indexed_count(id)?;
            if known.is_some() {
                self.delete(id);
            }
            return Ok(known.is_some());
        };
        let mut from = self.indexed_count(id)?.unwrap_or(0);
        if from == record.nodes && !whole {
            return Ok(false);
        }
        if whole || from > record.nodes {
            self.delete(id);
            from = 0;
        }
        let fields = self.open.fields;
        if record.nodes - from > WHOLE_READ {
            // Many nodes to take in (a new index, a session changed on another instance):
            // one read of them all, not one per node (a round trip each on a database).
            if let Ok(nodes) = self.read(self.shared.store.nodes(id)) {
                let wanted = nodes.iter().filter(|n| n.id > from && n.id <= record.nodes);
                for node in wanted {
                    self.writer.add_document(fields.node_document(id, node))?;
                }
                return self.mark(id, record.nodes);
            }
        }
        for number in from + 1..=record.nodes {
            match self.read(self.shared.store.node(id, number)) {
                Ok(node) => {
                    self.writer.add_document(fields.node_document(id, &node))?;
                }
                Err(error) => {
                    tracing::warn!(session = %id, node = number, %error, "a node cannot be read; it is left out of the search index")
                }
            }
        }
        self.mark(id, record.nodes)
    }

    /// Notes that `count` of a session's nodes are indexed (its marker, committed with the
    /// batch). Always true: something changed.
    fn mark(&mut self, id: &Uuid, count: u64) -> Result<bool, SearchError> {
        let fields = self.open.fields;
        self.writer.delete_term(fields.marker_term(id));
        self.writer
            .add_document(fields.marker_document(id, count))?;
        self.counts.insert(*id, count);
        Ok(true)
    }

    /// Indexes the nodes a session gained as they were handed over, when they follow
    /// what is indexed of it; otherwise indexes it from the store. Whether anything
    /// changed.
    fn index_gained(&mut self, id: &Uuid, gained: Vec<NodeRecord>) -> Result<bool, SearchError> {
        let Some(last) = gained.last().map(|node| node.id) else {
            return self.index_session(id, false);
        };
        let from = self.indexed_count(id)?.unwrap_or(0);
        if last <= from {
            return Ok(false);
        }
        let follows = gained.iter().zip(gained[0].id..).all(|(n, id)| n.id == id);
        if gained[0].id > from + 1 || !follows || self.forgotten.contains(id) {
            return self.index_session(id, false);
        }
        let fields = self.open.fields;
        for node in gained.iter().filter(|node| node.id > from) {
            self.writer.add_document(fields.node_document(id, node))?;
        }
        self.mark(id, last)
    }

    /// How many of a session's nodes are indexed (none: it is not in the index).
    fn indexed_count(&self, id: &Uuid) -> Result<Option<u64>, SearchError> {
        if let Some(count) = self.counts.get(id) {
            return Ok(Some(*count));
        }
        let searcher = self.open.reader.searcher();
        Ok(self.open.fields.marker_count(&searcher, id)?)
    }

    /// Deletes a session's documents and marker (committed with the batch).
    pub(super) fn delete(&mut self, id: &Uuid) {
        let fields = self.open.fields;
        self.writer.delete_term(fields.session_term(id));
        self.writer.delete_term(fields.marker_term(id));
        self.counts.insert(*id, 0);
    }

    pub(super) fn commit(&mut self) -> Result<(), SearchError> {
        let mut commit = self.writer.prepare_commit()?;
        if let Some(mark) = self.feed_mark {
            commit.set_payload(&mark.to_string());
        }
        commit.commit()?;
        if self.counts.len() > COUNTS_KEPT {
            self.counts = HashMap::new();
        }
        self.open.reader.reload()?;
        self.shared.commits.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Rewrites every segment into one, so deleted documents leave the files, and removes
    /// the files no longer used: what a forgotten session needs to be gone from the disk.
    pub(super) fn compact(&mut self) -> Result<(), SearchError> {
        let segments = self.open.index.searchable_segment_ids()?;
        if !segments.is_empty() {
            self.writer.merge(&segments).wait()?;
        }
        self.open.reader.reload()?;
        self.writer.garbage_collect_files().wait()?;
        Ok(())
    }
}

/// The jobs of one batch.
#[derive(Default)]
struct Batch {
    /// Sessions changed, with the nodes they gained in the order heard.
    changed: BTreeMap<Uuid, Vec<NodeRecord>>,
    whole: BTreeSet<Uuid>,
    forget: BTreeSet<Uuid>,
    waiting: Vec<std::sync::mpsc::Sender<()>>,
    catching_up: Vec<tokio::sync::oneshot::Sender<()>>,
    /// Asked to stop: answered once the indexer has let go of the store.
    stop: Option<std::sync::mpsc::Sender<()>>,
    /// Asked to verify the index (a search failed inside it).
    verify: bool,
    /// The shared store's feed was heard up to here.
    mark: Option<FeedMark>,
}

impl Batch {
    /// Takes in the durable changes handed over since the last batch.
    fn take_handed(&mut self, changed: Vec<Applied>) {
        for Applied { session, nodes } in changed {
            self.changed.entry(session).or_default().extend(nodes);
        }
    }

    fn add(&mut self, job: Job) {
        match job {
            Job::Handed => {}
            Job::Whole(id, done) => {
                self.forget.remove(&id);
                self.changed.entry(id).or_default();
                self.whole.insert(id);
                self.waiting.push(done);
            }
            Job::Forget(id, done) => {
                self.forget.insert(id);
                self.waiting.push(done);
            }
            Job::Verify => self.verify = true,
            Job::Flush(done) => self.waiting.push(done),
            Job::CatchUp(done) => self.catching_up.push(done),
            Job::Stop(done) => self.stop = Some(done),
            Job::FeedMark(mark) => self.mark = self.mark.max(Some(mark)),
        }
    }
}
