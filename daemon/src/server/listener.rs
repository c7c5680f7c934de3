//! Binding the daemon's socket safely.
//!
//! The socket's directory is created 0700 and the socket itself 0600, the mode applied
//! before `bind` (no umask race), so no other user can ever connect. A socket file left by a
//! dead daemon is reclaimed; one that a live daemon answers on makes us refuse to start
//! (we probe with a connect: overwriting would steal a running daemon's socket).

use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use interprocess::local_socket::tokio::Listener;
use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
use interprocess::os::unix::local_socket::ListenerOptionsExt;

/// Why the socket could not be bound.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    /// A live daemon answers on the socket.
    #[error(
        "another omnid is already listening on {}; stop it first, or pass a different --socket",
        .0.display()
    )]
    AlreadyRunning(PathBuf),
    /// The socket's directory could let another user replace the socket.
    #[error("refusing to listen: {0}")]
    UnsafeDir(String),
    /// Something that is not a socket sits at the path.
    #[error("{} exists and is not a socket; refusing to replace it", .0.display())]
    NotASocket(PathBuf),
    /// Any other failure.
    #[error("cannot listen on {}: {source}", path.display())]
    Io {
        /// The socket path.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> BindError + '_ {
    move |source| BindError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The sockets systemd handed over (`LISTEN_FDS`/`LISTEN_PID`): the control socket and,
/// if the socket unit lists it too, the HTTP API's `api.sock` (told apart by file name).
/// Such sockets belong to systemd: they are never unlinked.
#[derive(Default)]
pub struct Inherited {
    /// The control socket, with the path it is bound to.
    pub control: Option<(Listener, Option<PathBuf>)>,
    /// The HTTP API's socket.
    pub api: Option<std::os::unix::net::UnixListener>,
}

/// The sockets systemd handed over, if any.
pub fn inherited() -> Result<Inherited, BindError> {
    let activation = |source| BindError::Io {
        path: PathBuf::from("(socket activation)"),
        source,
    };
    let mut inherited = Inherited::default();
    for fd in sd_notify::listen_fds().map_err(activation)? {
        // SAFETY: systemd passed this descriptor to this process (LISTEN_PID is ours,
        // checked by `listen_fds`), and nothing else in the process owns it: we take each
        // exactly once.
        #[allow(unsafe_code)]
        let owned = unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) };
        let std_listener = std::os::unix::net::UnixListener::from(owned);
        let path = std_listener
            .local_addr()
            .ok()
            .and_then(|addr| addr.as_pathname().map(Path::to_path_buf));
        if path.as_deref().and_then(Path::file_name) == Some("api.sock".as_ref()) {
            inherited.api = Some(std_listener);
            continue;
        }
        if inherited.control.is_some() {
            tracing::warn!("systemd passed more than one control socket; using the first");
            continue;
        }
        let uds = interprocess::os::unix::uds_local_socket::tokio::Listener::try_from(
            std::os::fd::OwnedFd::from(std_listener),
        )
        .map_err(activation)?;
        inherited.control = Some((Listener::from(uds), path));
    }
    Ok(inherited)
}

/// Binds the HTTP API's Unix socket (0600, the same rules as the control socket: the
/// directory was checked when that was bound), reclaiming a stale one.
pub fn bind_api(path: &Path) -> Result<tokio::net::UnixListener, BindError> {
    use std::os::unix::fs::PermissionsExt;
    reclaim_stale(path)?;
    let listener = tokio::net::UnixListener::bind(path).map_err(|e| match e.kind() {
        io::ErrorKind::AddrInUse => BindError::AlreadyRunning(path.to_path_buf()),
        _ => io_error(path)(e),
    })?;
    // The umask (077) already made it private; say so explicitly all the same.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(io_error(path))?;
    Ok(listener)
}

/// Fails if the socket's directory is unsafe or a live daemon answers at `path`; removes
/// a stale socket file left by a dead one.
pub fn reclaim_stale(path: &Path) -> Result<(), BindError> {
    if let Some(dir) = path.parent().filter(|d| d.is_dir()) {
        check_socket_dir(dir)?;
    }
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error(path)(e)),
    };
    if !metadata.file_type().is_socket() {
        return Err(BindError::NotASocket(path.to_path_buf()));
    }
    match UnixStream::connect(path) {
        Ok(_) => Err(BindError::AlreadyRunning(path.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            tracing::info!(socket = %path.display(), "removing a stale socket left by a dead omnid");
            std::fs::remove_file(path).map_err(io_error(path))
        }
        Err(e) => Err(io_error(path)(e)),
    }
}

/// An existing directory for our socket must be ours and writable by nobody else:
/// otherwise another user could replace the socket and read every prompt.
fn check_socket_dir(dir: &Path) -> Result<(), BindError> {
    if let Some(problem) = omni_proto::unsafe_socket_dir(&dir.join("omnid.sock")) {
        return Err(BindError::UnsafeDir(problem));
    }
    let owner = std::fs::metadata(dir)
        .map(|m| m.uid())
        .map_err(io_error(dir))?;
    let me = rustix::process::geteuid().as_raw();
    if owner != me {
        return Err(BindError::UnsafeDir(format!(
            "the socket's directory {} belongs to uid {owner}, not to omnid's user (uid {me}), \
             who could replace the socket; use a directory of your own (the default is \
             $XDG_RUNTIME_DIR/omni)",
            dir.display()
        )));
    }
    Ok(())
}

/// Creates the socket's directory (0700) if needed (an existing one must be safe, see
/// [`reclaim_stale`]), reclaims a stale socket, and binds a 0600 socket. The listener removes its socket
/// file when dropped.
pub fn bind(path: &Path) -> Result<Listener, BindError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        && !dir.exists()
    {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(io_error(path))?;
    }
    reclaim_stale(path)?;
    let name = path
        .to_fs_name::<GenericFilePath>()
        .map_err(io_error(path))?;
    ListenerOptions::new()
        .name(name)
        .mode(0o600)
        .reclaim_name(true)
        .create_tokio()
        .map_err(|e| match e.kind() {
            io::ErrorKind::AddrInUse => BindError::AlreadyRunning(path.to_path_buf()),
            _ => io_error(path)(e),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn socket_and_new_directory_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run/omni/omnid.sock");
        let listener = bind(&path).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        drop(listener);
        assert!(
            !path.exists(),
            "the socket file is removed when the listener goes"
        );
    }

    #[tokio::test]
    async fn a_stale_socket_is_reclaimed_and_a_live_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("omnid.sock");
        // A socket file nobody listens on: what a kill -9'd daemon leaves behind.
        drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
        assert!(path.exists());
        let live = bind(&path).unwrap();
        let second = bind(&path).unwrap_err();
        assert!(matches!(second, BindError::AlreadyRunning(_)), "{second}");
        drop(live);
    }

    #[tokio::test]
    async fn a_directory_others_can_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let err = bind(&shared.join("omnid.sock")).err().unwrap().to_string();
        assert!(err.contains("writable by other users (mode 1777)"), "{err}");
        assert!(!shared.join("omnid.sock").exists());
    }

    #[test]
    fn a_regular_file_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("omnid.sock");
        std::fs::write(&path, "precious").unwrap();
        assert!(matches!(
            reclaim_stale(&path),
            Err(BindError::NotASocket(_))
        ));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
    }
}
