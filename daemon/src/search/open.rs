//! Opening the index in `DATA_DIR/search`, private like the rest of the data directory: an
//! index that is missing, cannot be opened or is of another version is set aside and a new,
//! empty one made, which the indexer then fills from the store. The indexer's thread opens
//! it, not the start: opening an index of a million nodes (its segments, a reader, the
//! writer and its threads) took 6-9 ms of a daemon's start, before its first answer, for
//! something no request but a search needs (`cold_start_ratio_beside_open` in `cargo bench
//! -p omnid --bench scale`). A search waits for it ([`Opening::wait`]).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use tantivy::directory::MmapDirectory;
use tantivy::{Index, IndexReader, ReloadPolicy};

use super::SearchError;
use super::schema::{Fields, INDEX_VERSION};

/// The index's folder in the data directory.
pub fn index_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("search")
}

/// An open index and its fields.
pub struct Opened {
    pub index: Index,
    pub fields: Fields,
}

/// An open index with the reader searches and the indexer share.
pub struct Open {
    pub index: Index,
    pub reader: IndexReader,
    pub fields: Fields,
}

impl Open {
    /// Opens (or rebuilds, see [`open_or_rebuild`]) the index in `dir`, with its reader.
    pub fn at(dir: &Path) -> Result<Self, SearchError> {
        let opened = open_or_rebuild(dir)?;
        let reader = opened
            .index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(Self {
            index: opened.index,
            reader,
            fields: opened.fields,
        })
    }
}

/// The index as its thread opens it: not yet, open, or why it could not be.
#[derive(Default)]
pub struct Opening {
    state: Mutex<Option<Result<Arc<Open>, String>>>,
    settled: Condvar,
}

impl Opening {
    fn lock(&self) -> MutexGuard<'_, Option<Result<Arc<Open>, String>>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Says how the opening ended, and wakes whoever waits for it.
    pub fn settle(&self, outcome: Result<Arc<Open>, String>) {
        *self.lock() = Some(outcome);
        self.settled.notify_all();
    }

    /// Whether the opening ended in failure.
    pub fn failed(&self) -> bool {
        matches!(*self.lock(), Some(Err(_)))
    }

    /// The open index, once its thread has opened it; why not, if it could not.
    pub fn wait(&self) -> Result<Arc<Open>, String> {
        let mut state = self.lock();
        loop {
            if let Some(outcome) = state.as_ref() {
                return outcome.clone();
            }
            state = self.settled.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Opens the index in `dir`, or makes a new one when it is missing, damaged or of another
/// version.
pub fn open_or_rebuild(dir: &Path) -> Result<Opened, SearchError> {
    let (schema, fields) = Fields::schema();
    match open_existing(dir) {
        Ok(index) if index.schema() == schema => {
            return Ok(Opened { index, fields });
        }
        Ok(_) => {
            tracing::warn!(dir = %dir.display(), "the search index has another layout; rebuilding it from the store")
        }
        Err(Why::Missing) => {
            tracing::info!(dir = %dir.display(), "no search index yet; building it from the store")
        }
        Err(Why::Version(found)) => {
            tracing::warn!(dir = %dir.display(), found, expected = INDEX_VERSION, "the search index is of another version; rebuilding it from the store")
        }
        Err(Why::Damaged(error)) => {
            tracing::warn!(dir = %dir.display(), %error, "the search index cannot be opened; rebuilding it from the store")
        }
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    crate::private::create_dir(dir)?;
    let index = Index::create_in_dir(dir, schema)?;
    std::fs::write(dir.join("version"), format!("{INDEX_VERSION}\n"))?;
    crate::private::restrict_tree(dir)?;
    Ok(Opened { index, fields })
}

/// Why an existing index was not opened.
enum Why {
    Missing,
    Version(String),
    Damaged(String),
}

fn open_existing(dir: &Path) -> Result<Index, Why> {
    let version = match std::fs::read_to_string(dir.join("version")) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(Why::Missing),
        Err(error) => return Err(Why::Damaged(error.to_string())),
    };
    if version.trim() != INDEX_VERSION.to_string() {
        return Err(Why::Version(version.trim().to_string()));
    }
    let directory = MmapDirectory::open(dir).map_err(|e| Why::Damaged(e.to_string()))?;
    let index = Index::open(directory).map_err(|e| Why::Damaged(e.to_string()))?;
    // Every segment's files must be readable: a torn or missing file is damage.
    let reader = index.reader().map_err(|e| Why::Damaged(e.to_string()))?;
    let _ = reader.searcher().num_docs();
    crate::private::restrict_tree(dir).map_err(|e| Why::Damaged(e.to_string()))?;
    Ok(index)
}
