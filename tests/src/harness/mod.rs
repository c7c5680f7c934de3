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

mod ctl;
mod notify;
pub use ctl::{CtlOutput, RunningCtl};
pub use notify::Notifications;

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

/// How to start a test daemon.
pub struct OmniBuilder {
    args: Vec<String>,
    base_url: Option<String>,
    log_dir: Option<PathBuf>,
    config: String,
    socket_activated: bool,
    tmpfs_mb: Option<u32>,
    discover_config: bool,
    data_from: Option<PathBuf>,
    env: Vec<(String, String)>,
    fake: Option<FakeGemini>,
}

/// Copies a directory tree (files and directories only).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a directory");
    for entry in std::fs::read_dir(from).expect("read a directory") {
        let entry = entry.expect("a directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}

impl OmniBuilder {
    /// Starts the daemon on a copy of the data directory at `dir` (a fixture).
    pub fn data_from(mut self, dir: &Path) -> Self {
        self.data_from = Some(dir.to_path_buf());
        self
    }

    /// Starts the daemon without `--config`: it looks for its file as a user's daemon does,
    /// in `$XDG_CONFIG_HOME/omni/config.toml` (a directory of the test's own), where
    /// [`Omni::config_path`] points. The file exists only if [`OmniBuilder::config`] gave
    /// it content, or the test writes it later.
    pub fn discovered_config(mut self) -> Self {
        self.discover_config = true;
        self
    }

    /// Puts the data directory on a private tmpfs of this many MiB, mounted in a mount
    /// namespace of the daemon's own (`unshare -Urm`), so a test can fill the disk. The
    /// tmpfs lives as long as the daemon process; reach it through [`Omni::data_mount`].
    pub fn data_on_tmpfs(mut self, mib: u32) -> Self {
        self.tmpfs_mb = Some(mib);
        self
    }

    /// Adds `omnid` arguments.
    pub fn args(mut self, args: &[&str]) -> Self {
        self.args.extend(args.iter().map(|a| a.to_string()));
        self
    }

    /// Sets an environment variable for `omnid`.
    pub fn env(mut self, name: &str, value: &str) -> Self {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Points the daemon at another model endpoint than its fake one.
    pub fn base_url(mut self, url: &str) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Starts the daemon with this configuration file (TOML). Without it the daemon gets an
    /// empty file, so no configuration on the machine can leak into a test.
    pub fn config(mut self, toml: &str) -> Self {
        self.config = toml.to_string();
        self
    }

    /// Starts the daemon the way systemd's socket activation does, through
    /// `systemd-socket-activate`: it listens, and hands the socket over on the first
    /// connection (`LISTEN_FDS`, `LISTEN_PID`).
    pub fn socket_activated(mut self) -> Self {
        self.socket_activated = true;
        self
    }

    /// Uses this log directory instead of one in the test's temporary directory.
    pub fn log_dir(mut self, dir: &Path) -> Self {
        self.log_dir = Some(dir.to_path_buf());
        self
    }

    /// Uses this fake endpoint instead of a fresh one.
    pub fn fake(mut self, fake: FakeGemini) -> Self {
        self.fake = Some(fake);
        self
    }

    /// Starts the daemon and waits until it accepts connections.
    #[track_caller]
    pub fn start(self) -> Omni {
        let dir = tempfile::Builder::new()
            .prefix("omni-test-")
            .tempdir()
            .expect("a temporary directory");
        let fake = self
            .fake
            .unwrap_or_else(|| FakeGemini::start().expect("the fake Gemini server"));
        let config_path = if self.discover_config {
            dir.path().join("xdg-config/omni/config.toml")
        } else {
            dir.path().join("config.toml")
        };
        if !self.discover_config || !self.config.is_empty() {
            let parent = config_path.parent().expect("the file's directory");
            std::fs::create_dir_all(parent).expect("create the configuration's directory");
            std::fs::write(&config_path, &self.config).expect("write the configuration file");
        }
        let data_dir = dir.path().join("data");
        if let Some(fixture) = &self.data_from {
            copy_tree(fixture, &data_dir);
        }
        let mut omni = Omni {
            config_path,
            discover_config: self.discover_config,
            socket_activated: self.socket_activated,
            tmpfs_mb: self.tmpfs_mb,
            socket: dir.path().join("run/omnid.sock"),
            data_dir,
            log_dir: self.log_dir.unwrap_or_else(|| dir.path().join("logs")),
            dir,
            base_url: self.base_url.unwrap_or_else(|| fake.url()),
            fake,
            args: self.args,
            env: self.env,
            child: None,
            starts: 0,
        };
        omni.spawn_daemon();
        omni
    }
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
        OmniBuilder {
            args: Vec::new(),
            base_url: None,
            log_dir: None,
            config: String::new(),
            socket_activated: false,
            tmpfs_mb: None,
            discover_config: false,
            data_from: None,
            env: Vec::new(),
            fake: None,
        }
    }

    /// The fake model endpoint this daemon talks to.
    pub fn fake(&self) -> &FakeGemini {
        &self.fake
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
            let mut activator = Command::new("systemd-socket-activate");
            activator.arg("-l").arg(socket);
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
            if UnixStream::connect(&self.socket).is_ok() {
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
