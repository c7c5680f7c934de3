//! Files omnictl writes for its user (`logs export`, `export -o`): with the user's own
//! permissions, never over an existing file without `--force`, never over anything but a
//! regular file, never inside omnid's data, log or runtime directory, and whole or not at
//! all.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use omni_proto::Status;

use super::Ctx;
use crate::error::CtlError;

/// Refuses a target that exists (without `force`) or lies inside omnid's directories.
pub async fn check(ctx: &mut Ctx, path: &Path, force: bool) -> Result<(), CtlError> {
    let existing = std::fs::symlink_metadata(path).ok();
    if existing.is_some() && !force {
        return Err(CtlError::usage(format!(
            "{} already exists; pass --force to replace it, or choose another -o",
            path.display()
        )));
    }
    refuse_daemon_files(ctx, path).await?;
    match existing {
        Some(metadata) => refuse_special(path, &metadata.file_type()),
        None => Ok(()),
    }
}

/// `--force` replaces a regular file only: never a FIFO, a device, a socket (omnid's own),
/// a directory or a symbolic link.
fn refuse_special(path: &Path, kind: &std::fs::FileType) -> Result<(), CtlError> {
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    Err(CtlError::usage(format!(
        "{} is {what}; --force replaces only a regular file. Choose another -o",
        path.display()
    )))
}

/// Refuses a target inside omnid's data or log directory (the daemon says where they
/// are), however the path reaches it (`..`, symlinks): `--force` replaces the user's own
/// files, never the store or the daemon's logs.
async fn refuse_daemon_files(ctx: &mut Ctx, path: &Path) -> Result<(), CtlError> {
    let status = ctx.ask(Status).await?;
    let runtime = Path::new(&status.socket).parent().unwrap_or(Path::new("/"));
    let owned = [
        ("data", Path::new(&status.data_dir)),
        ("log", Path::new(&status.log_dir)),
        ("runtime (socket)", runtime),
    ];
    for place in landing_places(path) {
        for (what, dir) in owned {
            if place.starts_with(resolved(dir)) || place.starts_with(dir) {
                return Err(CtlError::usage(format!(
                    "{} is inside omnid's {what} directory ({}); omnictl never writes there. \
                     Choose a path outside it with -o",
                    path.display(),
                    dir.display()
                )));
            }
        }
    }
    Ok(())
}

/// Every place writing to `path` may touch, symlinks resolved: the path as given (made
/// absolute), the file in its resolved directory (what a rename replaces), and, when it
/// exists, what it points to.
fn landing_places(path: &Path) -> Vec<PathBuf> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut places = vec![resolved(&absolute)];
    if let (Some(dir), Some(name)) = (absolute.parent(), absolute.file_name()) {
        places.push(resolved(dir).join(name));
    }
    places.push(absolute);
    places
}

/// A path with its symlinks and `..` resolved, when it exists; else as it is.
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Writes `bytes` whole: a new file (0600), or (with `force`) a file written aside and
/// renamed over the old one, so a failure never leaves half a file in place.
pub fn write(path: &Path, bytes: &[u8], force: bool, what: &str) -> Result<(), CtlError> {
    let failed = |e: std::io::Error| {
        CtlError::failure(format!("cannot write {what} to {}: {e}", path.display()))
    };
    if !force {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => CtlError::usage(format!(
                    "{} already exists; pass --force to replace it, or choose another -o",
                    path.display()
                )),
                _ => failed(e),
            })?;
        return file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| {
                let _ = std::fs::remove_file(path);
                failed(e)
            });
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut aside = tempfile::NamedTempFile::new_in(dir).map_err(failed)?;
    aside
        .write_all(bytes)
        .and_then(|()| aside.as_file().sync_all())
        .map_err(failed)?;
    // Looked at again just before the rename: what appeared since is not replaced either.
    if let Ok(metadata) = std::fs::symlink_metadata(path) {
        refuse_special(path, &metadata.file_type())?;
    }
    aside.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}
