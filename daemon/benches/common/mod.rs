//! What the benches share: percentiles, printing a figure against its baseline, timing a
//! loop, and a real `omnid` process.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use omni_proto::Client;

/// Median and 99th percentile of some samples.
pub struct Stats {
    p50: Duration,
    p99: Duration,
}

pub fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 - 1.0) * q).round() as usize];
    Stats {
        p50: at(0.5),
        p99: at(0.99),
    }
}

pub fn show(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.1} µs")
    } else {
        format!("{:.2} ms", us / 1000.0)
    }
}

pub fn report(what: &str, base_name: &str, base: &Stats, name: &str, measured: &Stats) {
    println!(
        "{what:<28} {base_name:>18}: p50 {:>9} p99 {:>9} | {name:>18}: p50 {:>9} p99 {:>9} | ratio {:.2}x",
        show(base.p50),
        show(base.p99),
        show(measured.p50),
        show(measured.p99),
        measured.p50.as_secs_f64() / base.p50.as_secs_f64()
    );
}

pub async fn time_n<F: AsyncFnMut()>(n: usize, mut op: F) -> Vec<Duration> {
    let mut samples = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        op().await;
        samples.push(start.elapsed());
    }
    samples
}

/// A daemon process for the bench; killed on drop.
pub struct Daemon {
    child: Child,
    socket: std::path::PathBuf,
}

impl Daemon {
    pub fn start(dir: &Path, base_url: &str) -> Self {
        Self::start_with(dir, base_url, &[])
    }

    pub fn start_with(dir: &Path, base_url: &str, extra: &[&str]) -> Self {
        let socket = dir.join("omnid.sock");
        let child = Command::new(env!("CARGO_BIN_EXE_omnid"))
            .args(extra)
            .arg("--socket")
            .arg(&socket)
            .arg("--data-dir")
            .arg(dir.join("data"))
            .arg("--log-dir")
            .arg(dir.join("logs"))
            .arg("--base-url")
            .arg(base_url)
            .env("OMNI_LOG", "warn")
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::os::unix::net::UnixStream::connect(&socket).is_err() {
            assert!(Instant::now() < deadline, "omnid did not start");
            std::thread::sleep(Duration::from_millis(10));
        }
        Self { child, socket }
    }

    pub async fn client(&self) -> Client {
        Client::connect(&self.socket, "bench").await.unwrap()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
