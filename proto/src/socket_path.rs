//! Where the daemon's socket lives when nobody says: shared so `omnid` and `omnictl` agree.

use std::path::PathBuf;

/// The environment variable that names the socket.
pub const SOCKET_ENV: &str = "OMNI_SOCKET";

/// Neither a flag, `$OMNI_SOCKET` nor `$XDG_RUNTIME_DIR` says where the socket is.
#[derive(Debug, thiserror::Error)]
#[error(
    "no socket path: pass --socket PATH, or set OMNI_SOCKET or XDG_RUNTIME_DIR \
     (the default is $XDG_RUNTIME_DIR/omni/omnid.sock)"
)]
pub struct SocketPathError;

/// The default socket path: `$OMNI_SOCKET`, else `$XDG_RUNTIME_DIR/omni/omnid.sock`.
pub fn default_socket_path() -> Result<PathBuf, SocketPathError> {
    if let Some(path) = std::env::var_os(SOCKET_ENV).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|p| !p.is_empty()) {
        Some(dir) => Ok(PathBuf::from(dir).join("omni").join("omnid.sock")),
        None => Err(SocketPathError),
    }
}

/// The socket path to use: an explicit one if given, else [`default_socket_path`].
pub fn resolve_socket_path(explicit: Option<PathBuf>) -> Result<PathBuf, SocketPathError> {
    match explicit {
        Some(path) => Ok(path),
        None => default_socket_path(),
    }
}

/// Why a socket in `path`'s directory cannot be trusted: the directory is writable by
/// someone other than its owner, so another user could replace the socket with their own
/// and read every prompt. `None` if the directory is safe, or does not exist yet.
pub fn unsafe_socket_dir(path: &std::path::Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty())?;
    let metadata = std::fs::metadata(dir).ok()?;
    let mode = metadata.mode() & 0o7777;
    (mode & 0o022 != 0).then(|| {
        format!(
            "the socket's directory {} is writable by other users (mode {mode:o}), so one of \
             them could replace the socket; use a private directory (the default is \
             $XDG_RUNTIME_DIR/omni), or `chmod go-w {}`",
            dir.display(),
            dir.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_directory_others_may_write_is_named() {
        let dir = std::env::temp_dir().join(format!("omni-sock-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let socket = dir.join("omnid.sock");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(unsafe_socket_dir(&socket), None);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let problem = unsafe_socket_dir(&socket).unwrap();
        assert!(
            problem.contains("writable by other users (mode 1777)"),
            "{problem}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            unsafe_socket_dir(&socket),
            None,
            "a missing directory is created private"
        );
    }
}
