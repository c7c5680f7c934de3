//! A real `omnid` process for a bench, and what the kernel says about it: CPU time spent
//! and resident memory.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use omni_proto::{Client, DaemonStatus, Reply, Status};

/// A daemon process for the bench; killed on drop.
pub struct Daemon {
    child: Child,
    socket: PathBuf,
}

impl Daemon {
    pub fn start(dir: &Path, base_url: &str) -> Self {
        Self::start_with(dir, base_url, &[])
    }

    /// Starts `omnid` with its data in `dir/data` and waits until its socket accepts
    /// connections (it answers them once its store is open).
    pub fn start_with(dir: &Path, base_url: &str, extra: &[&str]) -> Self {
        Self::start_command(
            Command::new(env!("CARGO_BIN_EXE_omnid")),
            dir,
            base_url,
            extra,
        )
    }

    /// [`Daemon::start_with`], the daemon's every thread kept to CPU `cpu` (`taskset`).
    pub fn start_on_cpu(cpu: usize, dir: &Path, base_url: &str, extra: &[&str]) -> Self {
        let mut pinned = Command::new("taskset");
        pinned
            .arg("-c")
            .arg(cpu.to_string())
            .arg(env!("CARGO_BIN_EXE_omnid"));
        Self::start_command(pinned, dir, base_url, extra)
    }

    fn start_command(mut command: Command, dir: &Path, base_url: &str, extra: &[&str]) -> Self {
        let socket = dir.join("omnid.sock");
        let started = Instant::now();
        let child = command
            .args(extra)
            .arg("--socket")
            .arg(&socket)
            .arg("--data-dir")
            .arg(dir.join("data"))
            .arg("--log-dir")
            .arg(dir.join("logs"))
            .arg("--base-url")
            .arg(base_url)
            // Warnings, and the start's own account of its store's open (read by the
            // start figures), in `dir/omnid.log`.
            .env("OMNI_LOG", "warn,omnid::run=info")
            .stderr(std::fs::File::create(dir.join("omnid.log")).unwrap())
            .spawn()
            .unwrap();
        let deadline = started + Duration::from_secs(120);
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            assert!(Instant::now() < deadline, "omnid did not start");
            std::thread::sleep(Duration::from_micros(200));
        }
        Self { child, socket }
    }

    /// Its control socket.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    pub async fn client(&self) -> Client {
        Client::connect(&self.socket, "bench").await.unwrap()
    }

    /// Stops the daemon the way systemd does (SIGTERM) and waits for it to exit.
    pub fn stop(mut self) {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
        let _ = self.child.wait();
    }

    /// CPU time the process's threads have run so far, to the nanosecond (the sum of
    /// each live thread's `schedstat`; the daemon's threads live as long as it does).
    pub fn cpu(&self) -> Duration {
        cpu_of(self.child.id())
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory now, in MiB.
    pub fn rss_mib(&self) -> f64 {
        rss_mib_of(self.child.id())
    }

    /// Waits until the search index has caught up with the store (a store written without
    /// the daemon, as the benches seed theirs, is indexed in the background at its first
    /// start; that work is no later request's).
    pub async fn indexed(&self) {
        let mut client = self.client().await;
        loop {
            let query = omni_proto::SearchQuery {
                text: "turn".into(),
                session: None,
                role: None,
                since_ms: None,
                limit: 1,
                archived: false,
            };
            match client.call(query.into(), |_| {}).await.unwrap() {
                Reply::Search(results) if results.complete => return,
                Reply::Search(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                other => panic!("search answered {other:?}"),
            }
        }
    }

    /// `omnictl status`, as JSON-free data.
    pub async fn status(&self) -> DaemonStatus {
        match self
            .client()
            .await
            .call(Status.into(), |_| {})
            .await
            .unwrap()
        {
            Reply::Status(status) => *status,
            other => panic!("status answered {other:?}"),
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// CPU time process `pid`'s threads have run so far, to the nanosecond (the sum of each
/// live thread's `schedstat`).
pub fn cpu_of(pid: u32) -> Duration {
    let tasks = format!("/proc/{pid}/task");
    let mut total = 0u64;
    for task in std::fs::read_dir(tasks).unwrap() {
        let path = task.unwrap().path().join("schedstat");
        // A thread that ended between the listing and the read has nothing to add.
        let Ok(stat) = std::fs::read_to_string(path) else {
            continue;
        };
        total += stat.split(' ').next().unwrap().parse::<u64>().unwrap();
    }
    Duration::from_nanos(total)
}

/// Process `pid`'s resident memory now, in MiB.
pub fn rss_mib_of(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib / 1024.0
}
