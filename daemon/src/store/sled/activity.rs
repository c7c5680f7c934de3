//! The sessions by last activity: the `activity` tree, keyed by the session record's
//! `updated_at_ms` (u64 BE) ‖ session id, with empty values. A listing walks it from the
//! newest end and reads only the records it shows, so a page costs the same at ten
//! sessions as at a hundred thousand.
//!
//! Kept with every change to a session record (see [`super::SledStore::apply`]): the new
//! entry is written before the record and the old one removed after it, so every stored
//! record always has its entry; a crash between leaves a stale entry, which readers skip
//! (its time is not the record's) and the next start removes. A store written before the
//! tree existed gets it built when opened.

use sled::IVec;
use uuid::Uuid;

use super::formats::decode_session;
use super::{SledStore, StoreError};

/// The default tree's key that says the index is complete.
const BUILT_KEY: &[u8] = b"activity-index-built";

/// An entry's key: the time, then the session.
pub(super) fn key(ms: u64, id: &Uuid) -> [u8; 24] {
    let mut key = [0u8; 24];
    key[..8].copy_from_slice(&ms.to_be_bytes());
    key[8..].copy_from_slice(id.as_bytes());
    key
}

/// The time and session of an entry's key.
fn read_key(key: &[u8]) -> Option<(u64, Uuid)> {
    let ms = u64::from_be_bytes(key.get(..8)?.try_into().ok()?);
    let id = Uuid::from_slice(key.get(8..24)?).ok()?;
    Some((ms, id))
}

/// The last activity of the session as stored now, if it is stored and readable.
pub(super) fn stored_activity(sessions: &sled::Tree, id: &Uuid) -> Result<Option<u64>, StoreError> {
    Ok(sessions
        .get(id.as_bytes())?
        .and_then(|value| decode_session(&value).ok())
        .map(|record| record.updated_at_ms))
}

/// Builds the index of a store that has none yet, or removes the stale entries a crash
/// left: one pass over the records, run when the store opens, unless a clean shutdown
/// left it (`closed_cleanly`: every change then finished, removal of its old entry
/// included). The pass looks up every session's record: 100,000 random reads before the
/// first answer on a store of 100,000 sessions.
pub(super) fn check(
    db: &sled::Db,
    sessions: &sled::Tree,
    activity: &sled::Tree,
    closed_cleanly: bool,
) -> Result<(), StoreError> {
    if db.get(BUILT_KEY)?.is_none() {
        for item in sessions.iter() {
            let (id, value) = item?;
            let Ok(id) = Uuid::from_slice(&id) else {
                continue;
            };
            let ms = decode_session(&value).map_or(0, |r| r.updated_at_ms);
            activity.insert(key(ms, &id), IVec::default())?;
        }
        db.insert(BUILT_KEY, IVec::default())?;
        return Ok(());
    }
    if closed_cleanly {
        return Ok(());
    }
    for item in activity.iter() {
        let (entry, _) = item?;
        let Some((ms, id)) = read_key(&entry) else {
            activity.remove(entry)?;
            continue;
        };
        let readable = sessions
            .get(id.as_bytes())?
            .map(|v| decode_session(&v).ok());
        let stale = match readable {
            None => true,
            Some(Some(record)) => record.updated_at_ms != ms,
            Some(None) => false,
        };
        if stale {
            activity.remove(entry)?;
        }
    }
    Ok(())
}

impl SledStore {
    /// Sessions by last activity, newest first, starting strictly before `before` (an
    /// entry's (time, id) place; all when `None`): (last activity, id) pairs. Entries
    /// whose time is not the record's (left by a crash) may appear: check the record's
    /// `updated_at_ms`.
    pub fn by_activity(
        &self,
        before: Option<(u64, Uuid)>,
    ) -> Result<impl Iterator<Item = Result<(u64, Uuid), StoreError>>, StoreError> {
        let db = self.db.get()?;
        let range = match before {
            Some((ms, id)) => db.activity.range(..key(ms, &id)),
            None => db.activity.iter(),
        };
        Ok(range.rev().filter_map(|item| match item {
            Ok((entry, _)) => read_key(&entry).map(Ok),
            Err(error) => Some(Err(StoreError::Sled(error))),
        }))
    }
}
