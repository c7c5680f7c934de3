//! Where the daemon's socket and configuration file live when nobody says: shared so
//! `omnid` and `omnictl` agree.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variable that names the socket.
pub const SOCKET_ENV: &str = "OMNI_SOCKET";

/// Neither a flag, `$OMNI_SOCKET`, the configuration file nor `$XDG_RUNTIME_DIR` says
/// where the socket is.
#[derive(Debug, thiserror::Error)]
#[error(
    "no socket path: pass --socket PATH, set OMNI_SOCKET or XDG_RUNTIME_DIR, or name one \
     with `socket` in the configuration file (the default is $XDG_RUNTIME_DIR/omni/omnid.sock)"
)]
pub struct SocketPathError;

/// Where the configuration file is looked for, in order: `$XDG_CONFIG_HOME/omni/config.toml`
/// (`~/.config/omni/config.toml` when unset), then `/etc/omni/config.toml`. `var` reads an
/// environment variable (so the daemon can pass its snapshot of the environment).
pub fn config_candidates(var: impl Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let user = set("XDG_CONFIG_HOME")
        .or_else(|| set("HOME").map(|home| home.join(".config")))
        .map(|dir| dir.join("omni").join("config.toml"));
    user.into_iter()
        .chain([PathBuf::from("/etc/omni/config.toml")])
        .collect()
}

/// The configuration file to read: `explicit` if given, else the first candidate that
/// exists (see [`config_candidates`]), else none.
pub fn find_config_file(
    explicit: Option<&Path>,
    var: impl Fn(&str) -> Option<OsString>,
) -> Option<PathBuf> {
    match explicit {
        Some(path) => Some(path.to_path_buf()),
        None => config_candidates(var).into_iter().find(|p| p.is_file()),
    }
}

/// The socket a client talks to: `explicit` (a flag), else `$OMNI_SOCKET`, else the
/// configuration file's `socket`, else `$XDG_RUNTIME_DIR/omni/omnid.sock`: the order
/// `omnid` itself resolves it in.
pub fn resolve_socket_path(
    explicit: Option<PathBuf>,
    from_file: Option<PathBuf>,
) -> Result<PathBuf, SocketPathError> {
    let env = |name: &str| std::env::var_os(name).filter(|p| !p.is_empty());
    explicit
        .or_else(|| env(SOCKET_ENV).map(PathBuf::from))
        .or(from_file)
        .or_else(|| {
            env("XDG_RUNTIME_DIR").map(|dir| PathBuf::from(dir).join("omni").join("omnid.sock"))
        })
        .ok_or(SocketPathError)
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
