//! `cargo bench -p omnid --bench load`: the proxy under load, as ratios against the same
//! load straight to the upstream in the same run.
//!
//! A static upstream (`upstream.rs`, Gemini- and OpenAI-shaped, the same bytes every time)
//! and the load generator (`client.rs`, HTTP/1.1 keep-alive, every request a new
//! conversation) share CPU 1; `omnid` runs alone on CPU 0 (`taskset`). For whole and
//! streamed answers and 1 / 16 / 64 connections, each load goes straight to the upstream,
//! then through a proxy that only relays (`--proxy-no-record`), then through one that
//! records every conversation, then through any other gateway named: requests per second,
//! p50 and p99, the p50 and p99 added over straight, and each proxy's CPU time per
//! request and resident memory.
//!
//! Options (after `--`): `--secs S` measured per run (5), `--warmup S` (1), `--conns
//! 1,16,64`, `--kinds whole,streamed`, `--modes relayed,recorded`, `--turns N` (each
//! connection's conversations go on for N rounds, as an agent's do; 1: every request a new
//! conversation), `--omnid ARG` (an argument for both proxies' `omnid`, repeated), `--api
//! gemini|openai` (the load's API: Gemini's own, or Chat Completions), `--upstream-port P`
//! (where the static upstream listens, so a gateway started before can point at it),
//! `--gateway NAME@ADDR[@PID]` (another gateway to measure the same way, its CPU and memory
//! read from PID; repeated) and `--gateway-header NAME@HEADER:VALUE` (a header every
//! request to it carries), `--rss-every S` (each proxy's resident memory sampled every S
//! seconds of a run, to see whether it stays flat). `scripts/bench-gateways` runs LiteLLM
//! and Portkey's gateway this way.

#![allow(clippy::unwrap_used)] // a bench that cannot set up should stop loudly

mod client;
#[path = "../common/mod.rs"]
mod common;
mod upstream;

use std::net::SocketAddr;
use std::time::Duration;

use client::{Api, Kind, Load, Measured};
use common::daemon::{cpu_of, rss_mib_of};
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
    api: Api,
    /// Where the static upstream listens (0: any free port).
    upstream_port: u16,
    gateways: Vec<Gateway>,
    /// Sample each proxy's resident memory this often during a run (`--rss-every S`).
    rss_every: Option<f64>,
}

/// Another gateway, started by whoever runs the bench, in front of the static upstream.
struct Gateway {
    name: String,
    address: SocketAddr,
    /// Its process, for its CPU time and memory.
    pid: Option<u32>,
    /// Headers every request to it carries (Portkey's provider and upstream).
    headers: Vec<(String, String)>,
}

/// `NAME@ADDR[@PID]`.
fn gateway(value: &str) -> Gateway {
    let mut parts = value.split('@');
    let name = parts.next().unwrap().to_string();
    let address = parts
        .next()
        .expect("--gateway NAME@ADDR[@PID]")
        .parse()
        .unwrap();
    let pid = parts.next().map(|pid| pid.parse().unwrap());
    Gateway {
        name,
        address,
        pid,
        headers: Vec::new(),
    }
}

/// Where the load goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Relayed,
    Recorded,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
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
        api: Api::Gemini,
        upstream_port: 0,
        gateways: Vec::new(),
        rss_every: None,
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
            "--api" => {
                plan.api = if value == "openai" {
                    Api::OpenAi
                } else {
                    Api::Gemini
                }
            }
            "--rss-every" => plan.rss_every = Some(value.parse().unwrap()),
            "--upstream-port" => plan.upstream_port = value.parse().unwrap(),
            "--gateway" => plan.gateways.push(gateway(value)),
            "--gateway-header" => {
                let (name, header) = value.split_once('@').unwrap();
                let (key, val) = header.split_once(':').unwrap();
                let gateway = plan.gateways.iter_mut().find(|g| g.name == name);
                let gateway = gateway.expect("--gateway-header after its --gateway");
                gateway.headers.push((key.to_string(), val.to_string()));
            }
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
    // Chat Completions go to an OpenAI-compatible provider: the static upstream's.
    let config = dir.join("omnid.toml");
    let provider =
        format!("[providers.static]\nkind = \"openai\"\nbase_url = \"http://{upstream}/v1\"\n");
    std::fs::write(&config, provider).unwrap();
    let config = config.to_string_lossy().into_owned();
    let mut args = vec![
        "--proxy-listen",
        &listen,
        "--proxy-accept-any-key",
        "--config",
        &config,
    ];
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
fn row(kind: Kind, conns: usize, through: &str, measured: &Measured, base: Option<&Measured>) {
    let added = |q: f64| {
        base.map_or(String::from("-"), |b| {
            show(measured.at(q).saturating_sub(b.at(q)))
        })
    };
    println!(
        "{:<9}{:>6}  {:<9}{:>9.0}{:>11}{:>11}{:>12}{:>12}{:>8}",
        kind.name(),
        conns,
        through,
        measured.per_second(),
        show(measured.at(0.5)),
        show(measured.at(0.99)),
        added(0.5),
        added(0.99),
        measured.failed,
    );
}

/// A proxy's resident memory, sampled during a run: whether it stays flat.
struct RssSampler {
    stop: std::sync::mpsc::Sender<()>,
    samples: std::thread::JoinHandle<Vec<f64>>,
}

impl RssSampler {
    fn start(pid: u32, every: f64) -> Self {
        let (stop, stopped) = std::sync::mpsc::channel();
        let samples = std::thread::spawn(move || {
            let mut samples = vec![rss_mib_of(pid)];
            while stopped
                .recv_timeout(Duration::from_secs_f64(every))
                .is_err()
            {
                samples.push(rss_mib_of(pid));
            }
            samples
        });
        Self { stop, samples }
    }

    fn print(self) {
        let _ = self.stop.send(());
        let samples = self.samples.join().unwrap();
        let shown: Vec<String> = samples.iter().map(|mib| format!("{mib:.0}")).collect();
        println!("{:>24}RSS every sample, MiB: {}", "", shown.join(" "));
    }
}

/// A proxy's CPU time per request over a run, and its memory after it.
fn cost(cpu: std::time::Duration, measured: &Measured, plan: &Plan, rss_mib: f64) {
    let all = measured.per_second() * (plan.secs + plan.warmup);
    println!(
        "{:>104}",
        format!(
            "{} µs, {:.0} MiB",
            (cpu.as_secs_f64() * 1e6 / all.max(1.0)) as u64,
            rss_mib
        )
    );
}

fn main() {
    let plan = plan();
    pin_self();
    let upstream = upstream::start(plan.upstream_port);
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
        "{:<9}{:>6}  {:<9}{:>9}{:>11}{:>11}{:>12}{:>12}{:>8}   CPU/req, RSS",
        "answer", "conns", "through", "req/s", "p50", "p99", "added p50", "added p99", "failed"
    );
    for &kind in &plan.kinds {
        for &conns in &plan.conns {
            let load = Load {
                kind,
                api: plan.api,
                turns: plan.turns,
            };
            let straight = client::run(upstream, load, &[], conns, warmup, span);
            row(kind, conns, "straight", &straight, None);
            let mut relayed_rate = None;
            for (mode, proxy) in [(Mode::Relayed, &relayed), (Mode::Recorded, &recorded)] {
                let Some((daemon, address)) = proxy else {
                    continue;
                };
                let cpu = daemon.cpu();
                let sampler = plan
                    .rss_every
                    .map(|every| RssSampler::start(daemon.pid(), every));
                let measured = client::run(*address, load, &[], conns, warmup, span);
                let used = daemon.cpu() - cpu;
                row(kind, conns, mode.name(), &measured, Some(&straight));
                if let Some(sampler) = sampler {
                    sampler.print();
                }
                cost(used, &measured, &plan, daemon.rss_mib());
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
            for gateway in &plan.gateways {
                let cpu = gateway.pid.map(cpu_of);
                let to = gateway.address;
                let measured = client::run(to, load, &gateway.headers, conns, warmup, span);
                row(kind, conns, &gateway.name, &measured, Some(&straight));
                if let (Some(pid), Some(cpu)) = (gateway.pid, cpu) {
                    cost(cpu_of(pid) - cpu, &measured, &plan, rss_mib_of(pid));
                }
            }
        }
    }
}
