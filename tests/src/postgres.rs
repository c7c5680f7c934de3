//! A PostgreSQL cluster of the tests' own: `initdb` and `pg_ctl` into a temporary
//! directory, password authentication (scram-sha-256) on a loopback port, stopped when
//! dropped. PostgreSQL refuses to run as root, so when the tests do (as CI does) the
//! server runs as the unprivileged `postgres` user, which Debian's package makes.
//!
//! The server's binaries: the directory `OMNI_TEST_PG_BIN` names, else the one `initdb`
//! on PATH is in, else Debian's newest `/usr/lib/postgresql/<version>/bin`. `scripts/test`
//! installs them; a test that cannot find them fails, saying so.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

/// The environment variable naming the directory of PostgreSQL's server binaries.
pub const PG_BIN_ENV: &str = "OMNI_TEST_PG_BIN";

/// The user the cluster runs as when the tests run as root.
const SERVER_USER: &str = "postgres";

/// The role and database the tests use, and its password.
const ROLE: &str = "omni";
const PASSWORD: &str = "omni-test-password";

/// A running cluster; stopped (at once) when dropped, unless it is the run's shared one.
pub struct PgCluster {
    dir: PathBuf,
    /// The temporary directory it lives in (none for the run's shared cluster, which
    /// outlives each test).
    temp: Option<TempDir>,
    bin: PathBuf,
    port: u16,
    /// `postgres` when the tests run as root; `None` runs the server as ourselves.
    run_as: Option<String>,
}

/// The environment variable naming where the run's shared cluster lives: when set (by
/// `scripts/test`, which stops the cluster at the end), [`fresh_database`] uses it.
pub const SHARED_ENV: &str = "OMNI_TEST_PG_SHARED";

/// A database of its own for one test, on the cluster every test of the run shares (the
/// first test that asks starts it in the directory [`SHARED_ENV`] names): its URL and
/// the password. Creating a database takes a few milliseconds; a cluster, a second.
pub fn fresh_database() -> (String, &'static str) {
    let dir = std::env::var_os(SHARED_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("{SHARED_ENV} names no directory for the shared cluster"));
    std::fs::create_dir_all(&dir).expect("the shared cluster's directory");
    let lock = std::fs::File::create(dir.join("lock")).expect("the shared cluster's lock");
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).expect("lock");
    let cluster = PgCluster::shared(&dir);
    drop(lock);
    let name = format!(
        "t{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let port = cluster.port.to_string();
    cluster.run(
        "createdb",
        &["-h", "127.0.0.1", "-p", &port, "-U", ROLE, &name],
    );
    let url = format!("postgres://{ROLE}@127.0.0.1:{port}/{name}");
    (url, PASSWORD)
}

/// The directory of the server binaries, or why there is none.
pub fn bin_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(PG_BIN_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let on_path = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .find(|dir| dir.join("initdb").is_file())
        .and_then(|dir| std::fs::canonicalize(dir.join("initdb")).ok())
        .and_then(|initdb| initdb.parent().map(Path::to_path_buf));
    if let Some(dir) = on_path {
        return Ok(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, bin)| bin.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or_else(|| {
        format!(
            "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: run the tests \
             with `scripts/test`, which installs Debian's postgresql, or set {PG_BIN_ENV}"
        )
    })
}

/// A free loopback port (free when asked; the server binds it a moment later).
fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
    listener.local_addr().expect("a bound address").port()
}

/// Whether this process runs as root.
fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// A user's numeric id and group, from `id`.
fn ids_of(user: &str) -> (u32, u32) {
    let id = |flag: &str| -> u32 {
        let out = Command::new("id")
            .args([flag, user])
            .output()
            .expect("run id");
        let text = String::from_utf8_lossy(&out.stdout);
        text.trim().parse().unwrap_or_else(|_| {
            panic!("no user {user} to run PostgreSQL as (Debian's postgresql package makes it)")
        })
    };
    (id("-u"), id("-g"))
}

impl PgCluster {
    /// Makes and starts a cluster with the tests' role and database, waiting until it
    /// takes connections.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// [`PgCluster::start`], its WAL in 1 MiB segments (16 by default): so that a limit on
    /// the size of its files ([`PgCluster::restart_with_file_limit`]) can be small.
    pub fn start_with_small_wal() -> Self {
        Self::start_with(&["--wal-segsize=1"])
    }

    fn start_with(init_args: &[&str]) -> Self {
        let bin = bin_dir().unwrap_or_else(|why| panic!("{why}"));
        let dir = tempfile::Builder::new()
            .prefix("omni-pg-")
            .tempdir()
            .expect("a directory for the cluster");
        let run_as = is_root().then(|| SERVER_USER.to_string());
        if let Some(user) = &run_as {
            let (uid, gid) = ids_of(user);
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).expect("chown");
        }
        let cluster = Self {
            dir: dir.path().to_path_buf(),
            temp: Some(dir),
            bin,
            port: free_port(),
            run_as,
        };
        cluster.init(init_args);
        cluster.start_server(None);
        cluster.create_database();
        cluster
    }

    /// The run's shared cluster in `dir`, started if it is not running (the caller holds
    /// the directory's lock).
    fn shared(dir: &Path) -> Self {
        let bin = bin_dir().unwrap_or_else(|why| panic!("{why}"));
        let run_as = is_root().then(|| SERVER_USER.to_string());
        let port_file = dir.join("port");
        let known = std::fs::read_to_string(&port_file).ok();
        let mut cluster = Self {
            dir: dir.to_path_buf(),
            temp: None,
            bin,
            port: known
                .as_deref()
                .and_then(|p| p.trim().parse().ok())
                .unwrap_or(0),
            run_as,
        };
        if cluster.port != 0 && cluster.running() {
            return cluster;
        }
        if let Some(user) = &cluster.run_as {
            let (uid, gid) = ids_of(user);
            std::os::unix::fs::chown(dir, Some(uid), Some(gid)).expect("chown");
        }
        if !cluster.data().exists() {
            cluster.init(&[]);
        }
        cluster.port = free_port();
        cluster.start_server(None);
        std::fs::write(&port_file, cluster.port.to_string()).expect("write the port");
        cluster
    }

    /// Whether the server runs (`pg_ctl status`).
    fn running(&self) -> bool {
        let data = self.data().display().to_string();
        self.command("pg_ctl")
            .args(["-D", &data, "status"])
            .output()
            .is_ok_and(|out| out.status.success())
    }

    /// `postgres://omni@127.0.0.1:PORT/omni`: the password goes apart.
    pub fn url(&self) -> String {
        format!("postgres://{ROLE}@127.0.0.1:{}/{ROLE}", self.port)
    }

    /// The role's password.
    pub fn password(&self) -> &'static str {
        PASSWORD
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The password in a file only its owner may read (as omnid demands), beside the
    /// cluster's data.
    pub fn password_file(&self) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.join("omnid-password");
        std::fs::write(&path, PASSWORD).expect("the password file is written");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .expect("the password file is made private");
        path
    }

    /// An omnid on this cluster named `instance` (the password in
    /// [`PgCluster::password_file`]); more arguments may follow.
    pub fn omnid(&self, instance: &str) -> crate::harness::OmniBuilder {
        let password = self.password_file().display().to_string();
        crate::harness::Omni::builder().args(&[
            "--store-url",
            &self.url(),
            "--store-password-file",
            &password,
            "--instance-name",
            instance,
        ])
    }

    /// Stops the server at once (as a crash would), keeping its data.
    pub fn stop(&self) {
        self.pg_ctl(&["stop", "-m", "immediate"]);
    }

    /// Starts the server again on the same port and data.
    pub fn restart(&self) {
        self.start_server(None);
    }

    /// Starts the server again, no file of it allowed past `bytes` (`RLIMIT_FSIZE`, which
    /// the server inherits): a table that grows past it fails as on a full disk.
    pub fn restart_with_file_limit(&self, bytes: u64) {
        self.start_server(Some(bytes));
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// One of the server's programs, to run as the server's user.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        let mut command = match &self.run_as {
            Some(user) => {
                let mut command = Command::new("setpriv");
                command
                    .arg(format!("--reuid={user}"))
                    .arg(format!("--regid={user}"))
                    .arg("--init-groups")
                    .arg(path);
                command
            }
            None => Command::new(path),
        };
        command.env("PGPASSWORD", PASSWORD).current_dir(&self.dir);
        command
    }

    /// Runs one of the server's programs, as the server's user; it must succeed.
    fn run(&self, program: &str, args: &[&str]) -> Output {
        let output = self
            .command(program)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        assert!(
            output.status.success(),
            "{program} {args:?} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    fn init(&self, more: &[&str]) {
        let password_file = self.dir.join("password");
        std::fs::write(&password_file, PASSWORD).expect("write the password file");
        if let Some(user) = &self.run_as {
            let (uid, gid) = ids_of(user);
            std::os::unix::fs::chown(&password_file, Some(uid), Some(gid)).expect("chown");
        }
        let data = self.data();
        let password = format!("--pwfile={}", password_file.display());
        let data_arg = data.display().to_string();
        let args = [
            "-D",
            &data_arg,
            "-U",
            ROLE,
            "--auth=scram-sha-256",
            &password,
            "-E",
            "UTF8",
            "--no-sync",
        ];
        let args: Vec<&str> = args.iter().chain(more).copied().collect();
        self.run("initdb", &args);
    }

    fn pg_ctl(&self, args: &[&str]) {
        self.pg_ctl_limited(args, None);
    }

    /// `pg_ctl`, under `prlimit --fsize=LIMIT` when a limit is given.
    fn pg_ctl_limited(&self, args: &[&str], file_limit: Option<u64>) {
        let data = self.data().display().to_string();
        let mut all = vec!["-D", &data, "-w"];
        all.extend_from_slice(args);
        let Some(limit) = file_limit else {
            self.run("pg_ctl", &all);
            return;
        };
        let inner = self.command("pg_ctl");
        let mut limited = Command::new("prlimit");
        limited
            .arg(format!("--fsize={limit}"))
            .arg("--")
            .arg(inner.get_program())
            .args(inner.get_args())
            .args(&all)
            .env("PGPASSWORD", PASSWORD)
            .current_dir(&self.dir);
        let output = limited.output().expect("prlimit runs pg_ctl");
        assert!(
            output.status.success(),
            "pg_ctl under prlimit failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn start_server(&self, file_limit: Option<u64>) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("server.log").display().to_string();
        self.pg_ctl_limited(&["-l", &log, "-o", &options, "start"], file_limit);
    }

    fn create_database(&self) {
        let port = self.port.to_string();
        self.run(
            "createdb",
            &["-h", "127.0.0.1", "-p", &port, "-U", ROLE, ROLE],
        );
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        if self.temp.is_none() {
            return; // the run's shared cluster: scripts/test stops it
        }
        let data = self.data().display().to_string();
        let stop = ["-D", &data, "-m", "immediate", "stop"];
        let _ = self.command("pg_ctl").args(stop).output();
    }
}
