//! Purging a session for good: its record, nodes, moves, links, activity entry, origin and
//! chain entries leave the trees at once, and a file in the data directory asks the next
//! opening to rewrite sled's files (`rewrite.rs`), because sled 0.34 keeps removed values
//! in its log until it happens to rewrite those pages: after the next start no byte of the
//! session's text is left under the data directory, and the space is reclaimed.

use std::path::Path;

use uuid::Uuid;

use super::handles::Db;
use super::{Purged, SledStore, StoreError, activity};

/// The file whose presence asks the next opening for a rewrite.
pub(super) const PENDING: &str = "rewrite-pending";

/// The purges not finished everywhere yet (the search index, the diagnostic records): the
/// ids, one a line, written before anything is removed and taken out once all is gone, so
/// a purge a crash cut short is finished at the next start.
const UNFINISHED: &str = "purges-unfinished";

impl SledStore {
    /// The sessions whose purge began and is not finished everywhere (see
    /// [`SledStore::purge_finished`]); the store itself holds none of them any more once it
    /// opened (its rewrite removed what a crash left).
    pub fn unfinished_purges(&self) -> Vec<Uuid> {
        ids_in(&self.dir.join(UNFINISHED)).unwrap_or_default()
    }

    /// Notes that a purge is finished everywhere outside the store too (search index,
    /// diagnostic records).
    pub fn purge_finished(&self, id: &Uuid) -> Result<(), StoreError> {
        let path = self.dir.join(UNFINISHED);
        let io = |e: std::io::Error| super::open::explain_io(&self.dir, &e);
        let Some(ids) = ids_in(&path) else {
            return Ok(());
        };
        let left: String = ids
            .iter()
            .filter(|i| *i != id)
            .map(|i| format!("{i}\n"))
            .collect();
        if left.is_empty() {
            return std::fs::remove_file(&path).map_err(io);
        }
        let aside = path.with_extension("new");
        std::fs::write(&aside, left)
            .and_then(|()| std::fs::rename(&aside, &path))
            .map_err(io)
    }

    /// Removes every trace of a session from the store's trees, the record first (so
    /// readers stop seeing it at once), and asks the next opening to rewrite sled's files.
    /// Durable when it returns. `None` when there is no such session.
    pub async fn purge(&self, id: &Uuid) -> Result<Option<Purged>, StoreError> {
        let db = self.db.get()?;
        let Some(record) = db.sessions.get(id.as_bytes())? else {
            // A purge a crash cut short may have left its nodes kept apart.
            super::apart::forget(&self.dir, id)?;
            return Ok(None);
        };
        append_synced(&self.dir, UNFINISHED, id)?;
        append_synced(&self.dir, PENDING, id)?;
        let purged = {
            let mut count = self.count.lock();
            let purged = remove_all(&db, id, &record).map_err(|e| self.failed(&db, e))?;
            if let Some(known) = count.as_mut() {
                *known = known.saturating_sub(1);
            }
            purged
        };
        self.acknowledged.forget(id);
        self.sync().await?;
        super::apart::forget(&self.dir, id)?;
        Ok(Some(purged))
    }
}

/// Removes the session from every tree.
fn remove_all(db: &Db, id: &Uuid, record: &sled::IVec) -> Result<Purged, StoreError> {
    db.sessions.remove(id.as_bytes())?;
    if let Ok(decoded) = super::formats::decode_session(record) {
        db.activity
            .remove(activity::key(decoded.updated_at_ms, id))?;
    }
    let remove_prefixed = |tree: &sled::Tree| -> Result<usize, StoreError> {
        let keys: Vec<sled::IVec> = tree
            .scan_prefix(id.as_bytes())
            .keys()
            .collect::<Result<_, _>>()?;
        for key in &keys {
            tree.remove(key)?;
        }
        Ok(keys.len())
    };
    let nodes = remove_prefixed(&db.nodes)?;
    let moves = remove_prefixed(&db.moves)?;
    remove_prefixed(&db.links)?;
    db.origins.remove(id.as_bytes())?;
    for item in db.chains.iter() {
        let (key, value) = item?;
        if super::chains::names_session(&value, id) {
            db.chains.remove(key)?;
        }
    }
    // Its content hash goes too: importing the same file again brings it back.
    for item in db.imports.iter() {
        let (key, value) = item?;
        if super::import::session_of(&value) == Some(*id) {
            db.imports.remove(key)?;
        }
    }
    Ok(Purged { nodes, moves })
}

/// Adds the session's id to the file `name` in `dir`, durably, before anything is removed
/// (the ids, one a line, and nothing else).
fn append_synced(dir: &Path, name: &str, id: &Uuid) -> Result<(), StoreError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join(name);
    let io = |e: std::io::Error| super::open::explain_io(dir, &e);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(&path)
        .map_err(io)?;
    writeln!(file, "{id}").map_err(io)?;
    file.sync_all().map_err(io)?;
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io)
}

/// Asks the rewrite for every purge begun and not finished (a crash may have cut it short
/// before it asked), so the store opens without any of them.
pub(super) fn carry_unfinished(dir: &Path) -> Result<(), StoreError> {
    let asked = pending(dir).unwrap_or_default();
    for id in ids_in(&dir.join(UNFINISHED)).unwrap_or_default() {
        if !asked.contains(&id) {
            append_synced(dir, PENDING, &id)?;
        }
    }
    Ok(())
}

/// The sessions a pending rewrite is for.
pub(super) fn pending(dir: &Path) -> Option<Vec<Uuid>> {
    ids_in(&dir.join(PENDING))
}

/// The ids in a file of ids, one a line; `None` when there is no file.
fn ids_in(path: &Path) -> Option<Vec<Uuid>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|line| Uuid::parse_str(line.trim()).ok())
            .collect(),
    )
}
