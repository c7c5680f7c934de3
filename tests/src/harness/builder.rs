//! How a test daemon is started: its flags, environment, configuration file, data
//! (possibly a fixture's copy) and fake endpoint.

use std::path::{Path, PathBuf};

use super::Omni;
use crate::fake_gemini::FakeGemini;

/// How to start a test daemon.
#[derive(Default)]
pub struct OmniBuilder {
    args: Vec<String>,
    base_url: Option<String>,
    log_dir: Option<PathBuf>,
    config: String,
    socket_activated: bool,
    tmpfs_mb: Option<u32>,
    open_files: Option<(u64, u64)>,
    discover_config: bool,
    data_from: Option<PathBuf>,
    env: Vec<(String, String)>,
    fake: Option<FakeGemini>,
}

/// The environment variable that puts every test daemon on a PostgreSQL store of its own
/// (`OMNI_TEST_STORE=postgres`), on the run's shared cluster: how the suites that
/// exercise the store run against both backends (`scripts/test`).
pub const STORE_ENV: &str = "OMNI_TEST_STORE";

/// Whether this run's daemons keep their sessions in PostgreSQL.
pub fn on_postgres() -> bool {
    std::env::var(STORE_ENV).is_ok_and(|kind| kind == "postgres")
}

/// `--store-url` for a fresh database and `--store-password-file` (written into `dir`).
fn shared_store_args(dir: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let (url, password) = crate::postgres::fresh_database();
    let file = dir.join("store-password");
    std::fs::write(&file, password).expect("write the store's password");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))
        .expect("make the password file private");
    let file = file.display().to_string();
    vec![
        "--store-url".into(),
        url,
        "--store-password-file".into(),
        file,
    ]
}

/// Copies a directory tree (files and directories only).
pub fn copy_tree(from: &Path, to: &Path) {
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

    /// Starts the daemon with these soft and hard limits on open files (through
    /// util-linux's `prlimit`), as a service manager or a shell's `ulimit` would.
    pub fn open_files(mut self, soft: u64, hard: u64) -> Self {
        self.open_files = Some((soft, hard));
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
        let mut args = self.args;
        if on_postgres() && !args.iter().any(|a| a == "--store-url") {
            args.extend(shared_store_args(dir.path()));
        }
        let mut omni = Omni {
            config_path,
            discover_config: self.discover_config,
            socket_activated: self.socket_activated,
            tmpfs_mb: self.tmpfs_mb,
            open_files: self.open_files,
            socket: dir.path().join("run/omnid.sock"),
            data_dir,
            log_dir: self.log_dir.unwrap_or_else(|| dir.path().join("logs")),
            dir,
            base_url: self.base_url.unwrap_or_else(|| fake.url()),
            fake,
            args,
            env: self.env,
            child: None,
            starts: 0,
        };
        omni.spawn_daemon();
        omni
    }
}
