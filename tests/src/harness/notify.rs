//! systemd's notification socket, played by a test: what omnid says through sd_notify
//! (`READY=1`, `STATUS=...`, `WATCHDOG=1`, `STOPPING=1`), waited for as it is said.

use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// Longest wait for one notification.
const WAIT: Duration = Duration::from_secs(15);

/// A bound notification socket; give its path to omnid as `NOTIFY_SOCKET`.
pub struct Notifications {
    socket: UnixDatagram,
    path: PathBuf,
    _dir: TempDir,
}

impl Notifications {
    /// Binds a fresh socket in a temporary directory.
    pub fn bind() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("notify.sock");
        let socket = UnixDatagram::bind(&path).expect("bind the notification socket");
        socket
            .set_read_timeout(Some(Duration::from_secs(1)))
            .expect("a read timeout");
        Self {
            socket,
            path,
            _dir: dir,
        }
    }

    /// The socket's path, for `NOTIFY_SOCKET`.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads notifications until one has a line for which `wanted` holds; returns that
    /// line and the whole message.
    #[track_caller]
    fn wait(&self, what: &str, wanted: impl Fn(&str) -> bool) -> (String, String) {
        let deadline = Instant::now() + WAIT;
        let mut buffer = [0u8; 4096];
        loop {
            assert!(Instant::now() < deadline, "no {what} from omnid");
            let Ok(n) = self.socket.recv(&mut buffer) else {
                continue;
            };
            let message = String::from_utf8_lossy(&buffer[..n]).into_owned();
            if let Some(line) = message.lines().find(|line| wanted(line)) {
                return (line.to_string(), message);
            }
        }
    }

    /// Waits for a message with the line `wanted`; returns the whole message.
    #[track_caller]
    pub fn wait_for(&self, wanted: &str) -> String {
        self.wait(wanted, |line| line == wanted).1
    }

    /// Waits for a line starting with `prefix`; returns the line.
    #[track_caller]
    pub fn wait_for_line_starting(&self, prefix: &str) -> String {
        self.wait(&format!("{prefix}..."), |line| line.starts_with(prefix))
            .0
    }
}
