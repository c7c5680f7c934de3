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
