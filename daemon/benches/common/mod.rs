//! What the benches share: percentiles, printing a figure against its baseline, timing a
//! loop, a real `omnid` process (`daemon.rs`), stores written through the daemon's own
//! store code (`seed.rs`), and the raw-socket baseline (`echo.rs`).
#![allow(dead_code)] // each bench uses its own part of it

pub mod daemon;
pub mod echo;
pub mod seed;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

pub use daemon::Daemon;

/// Median and 99th percentile of some samples.
pub struct Stats {
    pub p50: Duration,
    pub p99: Duration,
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

/// The ratio of two medians.
pub fn ratio(measured: &Stats, base: &Stats) -> f64 {
    measured.p50.as_secs_f64() / base.p50.as_secs_f64()
}

pub fn report(what: &str, base_name: &str, base: &Stats, name: &str, measured: &Stats) {
    println!(
        "{what:<28} {base_name:>18}: p50 {:>9} p99 {:>9} | {name:>18}: p50 {:>9} p99 {:>9} | ratio {:.2}x",
        show(base.p50),
        show(base.p99),
        show(measured.p50),
        show(measured.p99),
        ratio(measured, base)
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

/// The floor of a durable write: `write` 256 bytes + `fdatasync`, `rounds` times, in `dir`.
pub fn fsync_loop(dir: &Path, rounds: usize) -> Stats {
    let mut file = std::fs::File::create(dir.join("fsync-baseline")).unwrap();
    let record = [7u8; 256];
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        file.write_all(&record).unwrap();
        file.sync_data().unwrap();
        samples.push(start.elapsed());
    }
    stats(samples)
}
