//! `cargo bench -p omnid --bench load`: the proxy under load, as ratios against the same
//! load straight to the upstream in the same run.
//!
//! A static upstream (`upstream.rs`, Gemini-shaped, the same bytes every time) and the
//! load generator (`client.rs`, HTTP/1.1 keep-alive, every request a new conversation)
//! share CPU 1; `omnid` runs alone on CPU 0 (`taskset`). For whole and streamed answers
//! and 1 / 16 / 64 connections, each load goes straight to the upstream, then through a
//! proxy that only relays (`--proxy-no-record`), then through one that records every
//! conversation: requests per second, p50 and p99, the p50 and p99 added over straight,
//! and omnid's CPU time per request and resident memory.
//!
//! Options (after `--`): `--secs S` measured per run (5), `--warmup S` (1), `--conns
//! 1,16,64`, `--kinds whole,streamed`, `--modes relayed,recorded`, `--turns N` (each
//! connection's conversations go on for N rounds, as an agent's do; 1: every request a new
//! conversation), `--omnid ARG` (an argument for both proxies' `omnid`, repeated).

#![allow(clippy::unwrap_used)] // a bench that cannot set up should stop loudly

mod client;
#[path = "../common/mod.rs"]
mod common;
mod upstream;

use std::net::SocketAddr;
use std::time::Duration;

use client::{Kind, Measured};
use common::{Daemon, show};

/// What to run.
struct Plan {
    secs: f64,
    warmup: f64,
    conns: Vec<usize>,
    kinds: Vec<Kind>,
    modes: Vec<Mode>,
    /// More arguments for both proxies' `omnid` (`--omnid ARG`, repeated).
    omnid: Vec<String>,
    /// Rounds per conversation (1: every request a new conversation).
    turns: usize,
}

/// Where the load goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Straight,
    Relayed,
    Recorded,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Straight => "straight",
            Mode::Relayed => "relayed",
            Mode::Recorded => "recorded",
        }
    }
}

fn plan() -> Plan {
    let mut plan = Plan {
        secs: 5.0,
        warmup: 1.0,
        conns: vec![1, 16, 64],
        kinds: vec![Kind::Whole, Kind::Streamed],
        modes: vec![Mode::Relayed, Mode::Recorded],
        omnid: Vec::new(),
        turns: 1,
    };
    let args: Vec<String> = std::env::args().collect();
    for pair in args.windows(2) {
        let value = pair[1].as_str();
        match pair[0].as_str() {
            "--secs" => plan.secs = value.parse().unwrap(),
            "--warmup" => plan.warmup = value.parse().unwrap(),
            "--conns" => plan.conns = value.split(',').map(|n| n.parse().unwrap()).collect(),
            "--kinds" => {
                plan.kinds = value
                    .split(',')
                    .map(|k| {
                        if k == "whole" {
                            Kind::Whole
                        } else {
                            Kind::Streamed
                        }
                    })
                    .collect()
            }
            "--omnid" => plan.omnid.push(value.to_string()),
            "--turns" => plan.turns = value.parse().unwrap(),
            "--modes" => {
                plan.modes = value
                    .split(',')
                    .map(|m| {
                        if m == "relayed" {
                            Mode::Relayed
                        } else {
                            Mode::Recorded
                        }
                    })
                    .collect()
            }
            _ => {}
        }
    }
    plan
}

/// Keeps this process (the upstream and the load generator) on CPU 1.
fn pin_self() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        println!("only {cpus} CPU: nothing pinned, figures are not comparable");
        return;
    }
    let pinned = std::process::Command::new("taskset")
        .args(["-a", "-p", "-c", "1", &std::process::id().to_string()])
        .output()
        .expect("taskset (util-linux) runs");
    assert!(pinned.status.success(), "taskset failed: {pinned:?}");
}

/// A proxy on CPU 0 in front of `upstream`: its daemon and the proxy's address.
fn proxy(
    dir: &std::path::Path,
    upstream: SocketAddr,
    records: bool,
    extra: &[String],
) -> (Daemon, SocketAddr) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = port.local_addr().unwrap();
    drop(port);
    let listen = address.to_string();
    let mut args = vec!["--proxy-listen", &listen, "--proxy-accept-any-key"];
    if !records {
        args.push("--proxy-no-record");
    }
    args.extend(extra.iter().map(String::as_str));
    let base = format!("http://{upstream}");
    let daemon = Daemon::start_on_cpu(0, dir, &base, &args);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(address).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the proxy did not start"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    (daemon, address)
}

/// One row of the table.
fn row(kind: Kind, conns: usize, mode: Mode, measured: &Measured, base: Option<&Measured>) {
    let added = |q: f64| {
        base.map_or(String::from("-"), |b| {
            show(measured.at(q).saturating_sub(b.at(q)))
        })
    };
    println!(
        "{:<9}{:>6}  {:<9}{:>9.0}{:>11}{:>11}{:>12}{:>12}{:>8}",
        kind.name(),
        conns,
        mode.name(),
        measured.per_second(),
        show(measured.at(0.5)),
        show(measured.at(0.99)),
        added(0.5),
        added(0.99),
        measured.failed,
    );
}

fn main() {
    let plan = plan();
    pin_self();
    let upstream = upstream::start();
    let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let relayed = plan
        .modes
        .contains(&Mode::Relayed)
        .then(|| proxy(dirs.0.path(), upstream, false, &plan.omnid));
    let recorded = plan
        .modes
        .contains(&Mode::Recorded)
        .then(|| proxy(dirs.1.path(), upstream, true, &plan.omnid));
    let (warmup, span) = (
        Duration::from_secs_f64(plan.warmup),
        Duration::from_secs_f64(plan.secs),
    );
    println!(
        "{:<9}{:>6}  {:<9}{:>9}{:>11}{:>11}{:>12}{:>12}{:>8}   omnid CPU/req, RSS",
        "answer", "conns", "through", "req/s", "p50", "p99", "added p50", "added p99", "failed"
    );
    for &kind in &plan.kinds {
        for &conns in &plan.conns {
            let load = (kind, plan.turns);
            let straight = client::run(upstream, load, conns, warmup, span);
            row(kind, conns, Mode::Straight, &straight, None);
            let mut relayed_rate = None;
            for (mode, proxy) in [(Mode::Relayed, &relayed), (Mode::Recorded, &recorded)] {
                let Some((daemon, address)) = proxy else {
                    continue;
                };
                let cpu = daemon.cpu();
                let measured = client::run(*address, load, conns, warmup, span);
                let used = daemon.cpu() - cpu;
                row(kind, conns, mode, &measured, Some(&straight));
                let all = measured.per_second() * (plan.secs + plan.warmup);
                println!(
                    "{:>104}",
                    format!(
                        "{} µs, {:.0} MiB",
                        (used.as_secs_f64() * 1e6 / all.max(1.0)) as u64,
                        daemon.rss_mib()
                    )
                );
                match mode {
                    Mode::Relayed => relayed_rate = Some(measured.per_second()),
                    _ => {
                        if let Some(rate) = relayed_rate {
                            println!(
                                "{:>104}",
                                format!(
                                    "recorded ÷ relayed req/s: {:.2}",
                                    measured.per_second() / rate
                                )
                            );
                        }
                    }
                }
            }
        }
    }
}
