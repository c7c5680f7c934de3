//! Rewriting sled's files after a purge, when the store opens: every live entry is copied
//! into a fresh database beside the old one (`rewrite.new/`), and the fresh files take the
//! old ones' place, so no byte of a purged session is left in any file and the space is
//! reclaimed (sled 0.34 keeps removed values in its log until it rewrites those pages).
//!
//! Crash-safe in three steps: (1) the copy, thrown away if a crash cuts it short (the
//! request, `rewrite-pending`, is still there, and the old files are untouched); (2)
//! `rewrite.ready`, written once the copy is complete and durable, lists the fresh
//! files; (3) the swap: old sled files not in the list are removed, then each listed file
//! replaces the old one of its name. A start that finds `rewrite.ready` finishes the swap
//! (each step is idempotent) before sled opens anything.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use uuid::Uuid;

use super::{StoreError, acknowledged, chains, open, purge};

const FRESH: &str = "rewrite.new";
const READY: &str = "rewrite.ready";

/// The name sled gives its default tree.
const DEFAULT_TREE: &[u8] = b"__sled__default";

/// Runs or finishes a rewrite a purge asked for; nothing when none is pending.
pub(super) fn if_pending(dir: &Path) -> Result<(), StoreError> {
    let io = |e: std::io::Error| open::explain_io(dir, &e);
    if !dir.join(READY).exists() {
        purge::carry_unfinished(dir)?;
        let Some(purged) = purge::pending(dir) else {
            return Ok(());
        };
        let started = std::time::Instant::now();
        let fresh = dir.join(FRESH);
        if fresh.exists() {
            fs::remove_dir_all(&fresh).map_err(io)?;
        }
        copy_live(dir, &fresh, &purged)?;
        let names = entries(&fresh).map_err(io)?;
        write_synced(&dir.join(READY), names.join("\n").as_bytes()).map_err(io)?;
        acknowledged::forget_in_file(dir, &purged).map_err(io)?;
        tracing::info!(
            sessions = purged.len(),
            ms = started.elapsed().as_millis() as u64,
            "the store was rewritten without the purged sessions"
        );
    }
    swap(dir).map_err(io)?;
    fs::remove_file(dir.join(READY)).map_err(io)?;
    sync_dir(dir).map_err(io)?;
    let _ = fs::remove_dir_all(dir.join(FRESH));
    fs::remove_file(dir.join(purge::PENDING))
        .or_else(missing_is_fine)
        .map_err(io)?;
    sync_dir(dir).map_err(io)
}

/// Copies every entry of the store in `dir` that belongs to a stored session not `purged`
/// (or to no session) into a new database at `fresh`, and closes both. A purge a crash cut
/// short may have left its session's record: it goes here too.
fn copy_live(dir: &Path, fresh: &Path, purged: &[Uuid]) -> Result<(), StoreError> {
    let old = open::sled(dir, open::LOCK_PATIENCE)?;
    open::private_dir(fresh)?;
    let new = open::sled(fresh, open::LOCK_PATIENCE)?;
    let live: HashSet<Uuid> = old
        .open_tree("sessions")?
        .iter()
        .keys()
        .filter_map(|key| key.ok().and_then(|k| Uuid::from_slice(&k).ok()))
        .filter(|id| !purged.contains(id))
        .collect();
    for (key, value) in old.iter().flatten() {
        new.insert(key, value)?;
    }
    for name in old.tree_names() {
        if name == DEFAULT_TREE {
            continue;
        }
        let (from, to) = (old.open_tree(&name)?, new.open_tree(&name)?);
        for item in from.iter() {
            let (key, value) = item?;
            if keeps(&name, &key, &value, &live) {
                to.insert(key, value)?;
            }
        }
    }
    new.flush()?;
    drop((old, new));
    open::wait_unlocked(dir, open::LOCK_PATIENCE)?;
    open::wait_unlocked(fresh, open::LOCK_PATIENCE)
}

/// Whether an entry of tree `name` belongs to a live session (or to none).
fn keeps(name: &[u8], key: &[u8], value: &[u8], live: &HashSet<Uuid>) -> bool {
    let session = |bytes: Option<&[u8]>| {
        bytes
            .and_then(|b| Uuid::from_slice(b).ok())
            .is_some_and(|id| live.contains(&id))
    };
    match name {
        b"sessions" | b"nodes" | b"moves" | b"links" | b"origins" => session(key.get(..16)),
        b"activity" => session(key.get(8..24)),
        b"chains" => live.iter().any(|id| chains::names_session(value, id)),
        b"imports" => session(
            super::import::session_of(value)
                .as_ref()
                .map(|id| &id.as_bytes()[..]),
        ),
        _ => true,
    }
}

/// The names in a directory, sorted.
fn entries(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir)? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// Whether `name` is one of sled's own files in a data directory.
fn is_sled_file(name: &str) -> bool {
    matches!(name, "conf" | "db" | "blobs") || name.starts_with("snap.")
}

/// Replaces the old sled files with the fresh ones `rewrite.ready` lists.
fn swap(dir: &Path) -> std::io::Result<()> {
    let listed = fs::read_to_string(dir.join(READY))?;
    let listed: Vec<&str> = listed.lines().filter(|l| !l.is_empty()).collect();
    for name in entries(dir)? {
        if is_sled_file(&name) && !listed.contains(&name.as_str()) {
            remove(&dir.join(&name))?;
        }
    }
    let fresh = dir.join(FRESH);
    for name in listed {
        let from = fresh.join(name);
        if from.exists() {
            remove(&dir.join(name))?;
            fs::rename(&from, dir.join(name))?;
        }
    }
    sync_dir(dir)
}

fn remove(path: &Path) -> std::io::Result<()> {
    let removed = if path.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    removed.or_else(missing_is_fine)
}

fn missing_is_fine(error: std::io::Error) -> std::io::Result<()> {
    match error.kind() {
        std::io::ErrorKind::NotFound => Ok(()),
        _ => Err(error),
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    fs::write(path, bytes)?;
    fs::File::open(path)?.sync_all()?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SessionRecord;
    use crate::store::Change;
    use crate::store::sled::SledStore;
    use crate::store::sled::tests::{change_with_node, prompt};

    const PHRASE: &str = "purge-me-phrase-9931";

    async fn session_saying(store: &SledStore, text: &str) -> Uuid {
        let mut record = SessionRecord::new(Uuid::new_v4(), 1);
        let node = prompt(1, text);
        let mv = change_with_node(&mut record, &node);
        let change = Change {
            session: &record,
            node: Some(&node),
            mv: Some(&mv),
            recorded: None,
            fence: None,
        };
        store.commit(&change).await.unwrap();
        record.id
    }

    fn holds(dir: &Path, needle: &[u8]) -> bool {
        fs::read_dir(dir).unwrap().any(|entry| {
            let path = entry.unwrap().path();
            if path.is_dir() {
                holds(&path, needle)
            } else {
                let bytes = fs::read(&path).unwrap_or_default();
                bytes.windows(needle.len()).any(|w| w == needle)
            }
        })
    }

    #[tokio::test]
    async fn a_swap_a_crash_cut_short_is_finished_at_the_next_opening() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path()).unwrap();
        let kept = session_saying(&store, "kept").await;
        let purged = session_saying(&store, PHRASE).await;
        store.purge(&purged).await.unwrap().unwrap();
        store.close().unwrap();
        assert!(
            holds(dir.path(), PHRASE.as_bytes()),
            "sled keeps it until rewritten"
        );

        // The copy is made and declared ready; the crash comes after the first removal.
        let fresh = dir.path().join(FRESH);
        copy_live(dir.path(), &fresh, &[]).unwrap();
        let names = entries(&fresh).unwrap();
        write_synced(&dir.path().join(READY), names.join("\n").as_bytes()).unwrap();
        fs::remove_file(dir.path().join("db")).unwrap();

        let store = SledStore::open(dir.path()).unwrap();
        assert!(store.session(&kept).unwrap().is_some());
        assert_eq!(store.nodes(&kept).unwrap()[0].text(), "kept");
        assert!(store.session(&purged).unwrap().is_none());
        store.close().unwrap();
        assert!(!holds(dir.path(), PHRASE.as_bytes()));
        for leftover in [FRESH, READY, purge::PENDING] {
            assert!(!dir.path().join(leftover).exists(), "{leftover} is gone");
        }
    }
}
