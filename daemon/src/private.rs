//! Keeping what omnid writes to itself: directories 0700 and files 0600, whatever the
//! umask, including what an older omnid (or a laxer umask) left behind.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::Path;

/// Creates a directory (and its missing parents) readable only by its owner.
pub fn create_dir(path: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
}

/// Sets a file's mode if it is not already exactly that; symbolic links are left alone.
pub fn restrict(path: &Path, mode: u32) -> io::Result<()> {
    let metadata = fs::symlink_metadata(path)?;
    if metadata.file_type().is_symlink() || metadata.permissions().mode() & 0o777 == mode {
        return Ok(());
    }
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

/// Makes `dir` and everything under it private: directories 0700, files 0600.
pub fn restrict_tree(dir: &Path) -> io::Result<()> {
    restrict(dir, 0o700)?;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            restrict_tree(&entry.path())?;
        } else if kind.is_file() {
            restrict(&entry.path(), 0o600)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_left_world_readable_becomes_private() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("logs");
        fs::create_dir_all(dir.join("errors/day")).unwrap();
        fs::write(dir.join("errors/day/e.json"), "{}").unwrap();
        fs::write(dir.join("api_errors.log"), "x").unwrap();
        for path in [&dir, &dir.join("errors"), &dir.join("errors/day")] {
            fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        restrict_tree(&dir).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&dir.join("errors/day")), 0o700);
        assert_eq!(mode(&dir.join("errors/day/e.json")), 0o600);
        assert_eq!(mode(&dir.join("api_errors.log")), 0o600);
    }
}
