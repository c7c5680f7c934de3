//! Big nodes kept apart from sled's pages. sled rewrites a whole page (and a value over its
//! blob threshold, as a new blob file) each time anything in that page changes, so one
//! 100 MB prompt made every later commit of its neighbours copy 100 MB: an import of
//! 100,000 small records ran for minutes instead of seconds. A node whose encoded value is
//! over [`APART_OVER`] is written to its own file under `DATA_DIR/apart/SESSION/NUMBER`
//! (synced, with its directory, before the commit that names it), and the nodes tree holds a
//! small pointer: the format byte [`APART_FORMAT`], the value's length and its CRC-32. Reads
//! follow the pointer and check both; purge removes the session's folder.

use std::borrow::Cow;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use uuid::Uuid;

use super::StoreError;

/// Encoded nodes larger than this are kept apart (under sled's own blob threshold, so a
/// node never becomes a sled blob).
pub const APART_OVER: usize = 64 * 1024;

/// The first byte of a pointer to a node kept apart (no record format uses it).
pub const APART_FORMAT: u8 = 0xA1;

const POINTER_LEN: usize = 1 + 8 + 4;

/// The folder of a session's nodes kept apart.
pub fn dir_of(data: &Path, session: &Uuid) -> PathBuf {
    data.join("apart").join(session.simple().to_string())
}

/// What the nodes tree stores for `encoded`, node `number` of `session`: the value itself
/// when small; else the value is written apart, durably, and a pointer returned.
pub fn stored(
    data: &Path,
    session: &Uuid,
    number: u64,
    encoded: Vec<u8>,
) -> Result<Vec<u8>, StoreError> {
    if encoded.len() <= APART_OVER {
        return Ok(encoded);
    }
    let io = |e: std::io::Error| super::open::explain_io(data, &e);
    let dir = dir_of(data, session);
    if !dir.exists() {
        crate::private::create_dir(&data.join("apart")).map_err(io)?;
        crate::private::create_dir(&dir).map_err(io)?;
        sync_dir(&data.join("apart")).map_err(io)?;
    }
    let path = dir.join(number.to_string());
    let aside = path.with_extension("new");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&aside)
        .map_err(io)?;
    file.write_all(&encoded).map_err(io)?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&aside, &path).map_err(io)?;
    sync_dir(&dir).map_err(io)?;
    let mut pointer = Vec::with_capacity(POINTER_LEN);
    pointer.push(APART_FORMAT);
    pointer.extend_from_slice(&(encoded.len() as u64).to_be_bytes());
    pointer.extend_from_slice(&crc32fast::hash(&encoded).to_be_bytes());
    Ok(pointer)
}

/// The encoded node a stored value stands for: the value itself, or what its pointer
/// points to (checked against the pointer's length and CRC-32).
pub fn resolved<'a>(
    data: &Path,
    session: &Uuid,
    number: u64,
    value: &'a [u8],
) -> Result<Cow<'a, [u8]>, StoreError> {
    if value.first() != Some(&APART_FORMAT) {
        return Ok(Cow::Borrowed(value));
    }
    let corrupt =
        |why: String| StoreError::Corrupt(format!("node {number} of session {session}: {why}"));
    let (Some(len), Some(crc)) = (value.get(1..9), value.get(9..13)) else {
        return Err(corrupt("a pointer to its file that is cut short".into()));
    };
    let len = u64::from_be_bytes(len.try_into().unwrap_or_default());
    let crc = u32::from_be_bytes(crc.try_into().unwrap_or_default());
    let path = dir_of(data, session).join(number.to_string());
    let bytes = std::fs::read(&path).map_err(|e| corrupt(format!("{}: {e}", path.display())))?;
    if bytes.len() as u64 != len || crc32fast::hash(&bytes) != crc {
        return Err(corrupt(format!(
            "{} is not what was stored",
            path.display()
        )));
    }
    Ok(Cow::Owned(bytes))
}

/// Removes a session's nodes kept apart (purge).
pub fn forget(data: &Path, session: &Uuid) -> Result<(), StoreError> {
    match std::fs::remove_dir_all(dir_of(data, session)) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(super::open::explain_io(data, &error))
        }
        _ => Ok(()),
    }
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}
