//! The load generator: `conns` HTTP/1.1 keep-alive connections, each sending its next
//! request as soon as the last answer is whole, for a warm-up and then a measured span.
//! Each connection holds conversations of `turns` rounds: its first request a new
//! conversation (its own prompt), each next one the conversation so far and a new prompt,
//! as an agent sends them. One thread: it shares its CPU with the
//! static upstream, never with the proxy.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;

/// Whole answers (`generateContent`) or streamed ones (`streamGenerateContent?alt=sse`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Whole,
    Streamed,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Whole => "whole",
            Kind::Streamed => "streamed",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Kind::Whole => "/v1beta/models/static:generateContent",
            Kind::Streamed => "/v1beta/models/static:streamGenerateContent?alt=sse",
        }
    }
}

/// What a measured span saw.
pub struct Measured {
    /// Answers received whole (200, body complete) within the span.
    pub answered: u64,
    /// Anything else: another status, or a connection that broke.
    pub failed: u64,
    pub span: Duration,
    /// Each answered request's time, sorted.
    pub latencies: Vec<Duration>,
}

impl Measured {
    pub fn per_second(&self) -> f64 {
        self.answered as f64 / self.span.as_secs_f64()
    }

    pub fn at(&self, q: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let last = self.latencies.len() - 1;
        self.latencies[((last as f64) * q).round() as usize]
    }
}

/// Numbers every prompt, so no two conversations are the same.
static PROMPTS: AtomicU64 = AtomicU64::new(0);

/// What the static upstream answers, as a client sends it back.
const ANSWER: &str = "A static answer of a few words, the same every time.";

/// A conversation of `rounds` earlier rounds (each answered with [`ANSWER`]), then a new
/// prompt; `contents` keeps the rounds so far.
fn body(contents: &mut Vec<String>) -> Bytes {
    let n = PROMPTS.fetch_add(1, Ordering::Relaxed);
    if !contents.is_empty() {
        contents.push(format!(
            r#"{{"role":"model","parts":[{{"text":"{ANSWER}"}}]}}"#
        ));
    }
    contents.push(format!(
        r#"{{"role":"user","parts":[{{"text":"load prompt {n}: say something short"}}]}}"#
    ));
    Bytes::from(format!(r#"{{"contents":[{}]}}"#, contents.join(",")))
}

/// One connection's loop; the latencies of the answers that ended within the span.
async fn connection(
    to: SocketAddr,
    kind: Kind,
    turns: usize,
    span: (Instant, Instant),
) -> (Vec<Duration>, u64) {
    let (mut latencies, mut failed) = (Vec::new(), 0);
    let Ok(stream) = tokio::net::TcpStream::connect(to).await else {
        return (latencies, 1);
    };
    let _ = stream.set_nodelay(true);
    let Ok((mut sender, conn)) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await
    else {
        return (latencies, 1);
    };
    tokio::spawn(conn);
    let (measure_from, until) = span;
    let mut contents = Vec::new();
    while Instant::now() < until {
        if contents.len() >= 2 * turns {
            contents.clear();
        }
        let request = Request::post(kind.path())
            .header("host", "load")
            .header("x-goog-api-key", "load-key")
            .header("content-type", "application/json")
            .body(Full::new(body(&mut contents)))
            .expect("a request");
        let started = Instant::now();
        let Ok(response) = sender.send_request(request).await else {
            return (latencies, failed + 1);
        };
        let ok = response.status() == 200;
        let whole = response.into_body().collect().await.is_ok();
        let ended = Instant::now();
        if ended < measure_from || ended > until {
            continue;
        }
        if ok && whole {
            latencies.push(ended - started);
        } else {
            failed += 1;
        }
    }
    (latencies, failed)
}

/// Runs `conns` connections to `to`, each holding conversations of `turns` rounds, for
/// `warmup`, then measures for `span`.
pub fn run(
    to: SocketAddr,
    (kind, turns): (Kind, usize),
    conns: usize,
    warmup: Duration,
    span: Duration,
) -> Measured {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let measure_from = Instant::now() + warmup;
        let until = measure_from + span;
        let tasks: Vec<_> = (0..conns)
            .map(|_| tokio::spawn(connection(to, kind, turns, (measure_from, until))))
            .collect();
        let (mut latencies, mut failed) = (Vec::new(), 0);
        for task in tasks {
            let (seen, broke) = task.await.expect("a connection's task");
            latencies.extend(seen);
            failed += broke;
        }
        latencies.sort();
        Measured {
            answered: latencies.len() as u64,
            failed,
            span,
            latencies,
        }
    })
}
