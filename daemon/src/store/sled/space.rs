//! The free-space guard. sled 0.34 does not survive a full disk: after one failed write it
//! refuses every later operation (reads included, some of which spin) until the database
//! is opened again, and it cannot even be opened while the disk is still full. So the store
//! never lets sled run the disk dry: a write is refused, cleanly and before sled sees it,
//! when less than a reserve would stay free.

use std::path::Path;

/// Space beyond the reserve that must be free before a refused store counts as healthy
/// again without a write having succeeded.
pub const HEADROOM: u64 = 1024 * 1024;

/// Bytes free for the daemon's user on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    let stats = rustix::fs::statvfs(dir)?;
    Ok(stats.f_bavail.saturating_mul(stats.f_frsize))
}

/// Whether a write of `incoming` bytes may go ahead: `Err(free)` if it would leave less
/// than `reserve` free. sled writes a value into its log and later into a new segment as
/// it compacts, so twice the value's size is counted. A file system that cannot say how
/// much is free is not guarded (the write goes ahead and sled reports what happens).
pub fn check(dir: &Path, reserve: u64, incoming: u64) -> Result<(), u64> {
    match free_bytes(dir) {
        Ok(free) if free < reserve.saturating_add(incoming.saturating_mul(2)) => Err(free),
        Ok(_) => Ok(()),
        Err(error) => {
            tracing::debug!(%error, "cannot tell the free space of the data directory");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_would_eat_into_the_reserve_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let free = free_bytes(dir.path()).unwrap();
        assert!(free > 0);
        assert_eq!(check(dir.path(), 0, 0), Ok(()));
        assert!(check(dir.path(), free.saturating_mul(2), 0).is_err());
        assert!(
            check(dir.path(), 0, free).is_err(),
            "twice the value is counted"
        );
    }
}
