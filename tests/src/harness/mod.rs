//! Starts the real `omnid` on a temporary socket and data directory, pointed at a
//! [`FakeGemini`], and runs the real `omnictl` against it.
//!
//! The binaries are found next to the test executable (`target/<profile>/`); `cargo test
//! --workspace` and `cargo nextest run --workspace` build them (the daemon and ctl crates
//! have integration tests of their own, which makes cargo build their binaries). Set
//! `OMNID_BIN` / `OMNICTL_BIN` to test other builds.

use std::fs::File;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use omni_proto::{Client, ClientError, Event, Reply, Request};
use rustix::process::Pid;
pub use rustix::process::Signal;
use tempfile::TempDir;

use crate::fake_gemini::FakeGemini;

mod builder;
mod ctl;
mod notify;
pub use builder::{OmniBuilder, copy_tree};
pub use ctl::{CtlOutput, RunningCtl};
pub use notify::Notifications;

/// Whether any file under `dir` holds `needle`, byte for byte.
pub fn any_file_holds(dir: &Path, needle: &[u8]) -> bool {
    std::fs::read_dir(dir).expect("a directory").any(|entry| {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            any_file_holds(&path, needle)
        } else {
            let bytes = std::fs::read(&path).unwrap_or_default();
            bytes.windows(needle.len()).any(|w| w == needle)
        }
    })
}

/// The API key every test daemon gets, so tests can check it never leaks.
pub const TEST_API_KEY: &str = "test-key-SECRET-0123456789";

/// Longest wait for a daemon to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(20);

fn binary(name: &str, env_override: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(env_override) {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test executable's path");
    let mut dir = exe.parent().expect("a directory").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let path = dir.join(name);
    assert!(
        path.exists(),
        "{} is not built: run the tests with `cargo nextest run --workspace` \
         (or `cargo build --workspace` first)",
        path.display()
    );
    path
}

/// The `omnid` binary under test.
pub fn omnid_bin() -> PathBuf {
    binary("omnid", "OMNID_BIN")
}

/// The `omnictl` binary under test.
pub fn omnictl_bin() -> PathBuf {
    binary("omnictl", "OMNICTL_BIN")
}

/// A running test daemon with its own directories and fake endpoint. Killed when dropped.
pub struct Omni {
    /// The daemon's socket.
    pub socket: PathBuf,
    /// The daemon's data directory.
    pub data_dir: PathBuf,
    /// The daemon's log directory.
    pub log_dir: PathBuf,
    /// The daemon's configuration file (rewrite it, then send SIGHUP, to test reloads).
    pub config_path: PathBuf,
    socket_activated: bool,
    tmpfs_mb: Option<u32>,
    open_files: Option<(u64, u64)>,
    discover_config: bool,
    dir: TempDir,
    fake: FakeGemini,
    base_url: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    child: Option<Child>,
    starts: u32,
}

impl Omni {
    /// Starts a daemon with default settings.
    #[track_caller]
    pub fn start() -> Self {
        Self::builder().start()
    }

    /// A builder for a daemon with extra flags or environment.
    pub fn builder() -> OmniBuilder {
        OmniBuilder::default()
    }

    /// The fake model endpoint this daemon talks to.
    pub fn fake(&self) -> &FakeGemini {
        &self.fake
    }

    /// A client of this daemon's HTTP API on its `api.sock`.
    pub fn api(&self) -> crate::http::Api {
        let socket = self.socket.with_file_name("api.sock");
        crate::http::Api::new(crate::http::Target::Unix(socket), None)
    }

    /// The temporary directory holding everything of this daemon.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    fn stderr_path(&self, start: u32) -> PathBuf {
        self.dir.path().join(format!("omnid-{start}.stderr"))
    }

    /// The command line of this daemon (for starting a second one by hand).
    pub fn daemon_command(&self) -> Command {
        self.daemon_command_on(&self.socket)
    }

    /// This daemon's command line, but listening on another socket.
    pub fn daemon_command_on(&self, socket: &Path) -> Command {
        let mut command = if self.socket_activated {
            let dir = socket.parent().expect("the socket's directory");
            std::fs::create_dir_all(dir).expect("create the socket's directory");
            // It passes on only the environment it is told to.
            // Both sockets, as the shipped socket units list them.
            let mut activator = Command::new("systemd-socket-activate");
            activator.arg("-l").arg(socket);
            activator.arg("-l").arg(socket.with_file_name("api.sock"));
            for name in ["GEMINI_API_KEY", "OMNI_LOG"]
                .into_iter()
                .chain(self.env.iter().map(|(k, _)| k.as_str()))
            {
                activator.arg("-E").arg(name);
            }
            activator.arg(omnid_bin());
            activator
        } else if let Some(mib) = self.tmpfs_mb {
            std::fs::create_dir_all(&self.data_dir).expect("the tmpfs mount point");
            let mut private = Command::new("unshare");
            let mount =
                format!("mount -t tmpfs -o size={mib}m,mode=0700 omni-test \"$0\" && exec \"$@\"");
            private
                .args(["-Urm", "sh", "-c", &mount])
                .arg(&self.data_dir)
                .arg(omnid_bin());
            private
        } else if let Some((soft, hard)) = self.open_files {
            let mut limited = Command::new("prlimit");
            limited
                .arg(format!("--nofile={soft}:{hard}"))
                .arg("--")
                .arg(omnid_bin());
            limited
        } else {
            Command::new(omnid_bin())
        };
        if self.discover_config {
            let xdg = self.dir.path().join("xdg-config");
            command.env("XDG_CONFIG_HOME", xdg);
        } else {
            command.arg("--config").arg(&self.config_path);
        }
        command
            .arg("--socket")
            .arg(socket)
            .arg("--data-dir")
            .arg(&self.data_dir)
            .arg("--log-dir")
            .arg(&self.log_dir)
            .arg("--base-url")
            .arg(&self.base_url)
            .arg("--model")
            .arg("fake-model")
            .args(&self.args)
            .env_remove("OMNI_SOCKET")
            .env("GEMINI_API_KEY", TEST_API_KEY)
            .env("OMNI_LOG", "info,omnid=debug")
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    #[track_caller]
    fn spawn_daemon(&mut self) {
        self.starts += 1;
        let stderr = File::create(self.stderr_path(self.starts)).expect("a stderr file");
        let child = self
            .daemon_command()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("omnid starts");
        self.child = Some(child);
        self.wait_until_listening();
    }

    #[track_caller]
    fn wait_until_listening(&mut self) {
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            // Ready once both sockets accept and the daemon answers: the sockets are
            // bound before the store opens, and served once it is open.
            let api = self.socket.with_file_name("api.sock");
            if UnixStream::connect(&self.socket).is_ok()
                && UnixStream::connect(&api).is_ok()
                && self.answers_hello()
            {
                return;
            }
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!(
                    "omnid exited during start-up ({status}):\n{}",
                    self.daemon_stderr()
                );
            }
            assert!(
                Instant::now() < deadline,
                "omnid did not start listening within {START_TIMEOUT:?}:\n{}",
                self.daemon_stderr()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Whether the daemon answers a `Hello` on its control socket within a second.
    fn answers_hello(&self) -> bool {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return false;
        };
        runtime.block_on(async {
            let hello = Client::connect(&self.socket, "omni-tests");
            matches!(
                tokio::time::timeout(Duration::from_secs(1), hello).await,
                Ok(Ok(_))
            )
        })
    }

    /// The data directory as the daemon sees it: on its private tmpfs (see
    /// [`OmniBuilder::data_on_tmpfs`]), reached through its `/proc/PID/root`.
    pub fn data_mount(&self) -> PathBuf {
        let inside = self.data_dir.strip_prefix("/").unwrap_or(&self.data_dir);
        PathBuf::from(format!("/proc/{}/root", self.pid())).join(inside)
    }

    /// Everything the current daemon process wrote to stderr.
    pub fn daemon_stderr(&self) -> String {
        std::fs::read_to_string(self.stderr_path(self.starts)).unwrap_or_default()
    }

    /// The daemon's process id.
    pub fn pid(&self) -> u32 {
        self.child
            .as_ref()
            .map(Child::id)
            .expect("a running daemon")
    }

    /// Kills the daemon with SIGKILL (a crash) and reaps it.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// A crash in the middle of clients' work: waits until `count` acknowledgements have
    /// arrived on `acked` (kept in `into`), kills the daemon with SIGKILL, and tells the
    /// clients to `stop`.
    pub fn kill9_after<T>(
        &mut self,
        count: usize,
        acked: &std::sync::mpsc::Receiver<T>,
        into: &mut Vec<T>,
        stop: &std::sync::atomic::AtomicBool,
    ) {
        for _ in 0..count {
            into.push(acked.recv().expect("a client acknowledged"));
        }
        self.kill9();
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Sends a signal (`Signal::TERM`, `Signal::INT`, `Signal::HUP`, ...) to the daemon.
    pub fn signal(&self, signal: Signal) {
        let child = self.child.as_ref().expect("a running daemon");
        rustix::process::kill_process(Pid::from_child(child), signal)
            .expect("the signal is delivered");
    }

    /// Waits for the daemon to exit, at most `timeout`; `None` if it is still running.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        let child = self.child.as_mut()?;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                self.child = None;
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Stops the daemon as a service manager does (SIGTERM) and waits for it to exit.
    #[track_caller]
    pub fn stop(&mut self) {
        self.signal(Signal::TERM);
        let exited = self.wait_exit(Duration::from_secs(30));
        assert!(
            exited.is_some_and(|s| s.success()),
            "omnid stops cleanly: {exited:?}"
        );
    }

    /// Starts a new daemon process on the same socket and directories.
    #[track_caller]
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "stop the daemon before restarting it");
        self.spawn_daemon();
    }

    /// Sends one request through the protocol client; returns its events and outcome.
    pub fn call(&self, request: Request) -> (Vec<Event>, Result<Reply, ClientError>) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let mut events = Vec::new();
            let result = match Client::connect(&self.socket, "omni-tests").await {
                Ok(mut client) => client.call(request, |e| events.push(e)).await,
                Err(e) => Err(e),
            };
            (events, result)
        })
    }
}

impl Drop for Omni {
    fn drop(&mut self) {
        self.kill9();
    }
}
