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
}

/// The API the load speaks: Gemini's own, or OpenAI's Chat Completions (which the other
/// gateways take).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Gemini,
    OpenAi,
}

/// What each connection sends.
#[derive(Clone, Copy)]
pub struct Load {
    pub kind: Kind,
    pub api: Api,
    /// Rounds per conversation (1: every request a new conversation).
    pub turns: usize,
}

impl Load {
    fn path(self) -> &'static str {
        match (self.api, self.kind) {
            (Api::Gemini, Kind::Whole) => "/v1beta/models/static:generateContent",
            (Api::Gemini, Kind::Streamed) => "/v1beta/models/static:streamGenerateContent?alt=sse",
            (Api::OpenAi, _) => "/v1/chat/completions",
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
fn body(load: Load, contents: &mut Vec<String>) -> Bytes {
    let n = PROMPTS.fetch_add(1, Ordering::Relaxed);
    let prompt = format!("load prompt {n}: say something short");
    if load.api == Api::OpenAi {
        if !contents.is_empty() {
            contents.push(format!(r#"{{"role":"assistant","content":"{ANSWER}"}}"#));
        }
        contents.push(format!(r#"{{"role":"user","content":"{prompt}"}}"#));
        let stream = load.kind == Kind::Streamed;
        return Bytes::from(format!(
            r#"{{"model":"static","stream":{stream},"messages":[{}]}}"#,
            contents.join(",")
        ));
    }
    if !contents.is_empty() {
        contents.push(format!(
            r#"{{"role":"model","parts":[{{"text":"{ANSWER}"}}]}}"#
        ));
    }
    contents.push(format!(
        r#"{{"role":"user","parts":[{{"text":"{prompt}"}}]}}"#
    ));
    Bytes::from(format!(r#"{{"contents":[{}]}}"#, contents.join(",")))
}

/// One connection's loop; the latencies of the answers that ended within the span.
async fn connection(
    to: SocketAddr,
    load: Load,
    headers: Vec<(String, String)>,
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
        // A conversation of `turns` rounds holds `2 * turns - 1` contents after its last
        // request: its prompts and the answers between them.
        if contents.len() + 1 >= 2 * load.turns {
            contents.clear();
        }
        let mut request = Request::post(load.path())
            .header("host", "load")
            .header("x-goog-api-key", "load-key")
            .header("authorization", "Bearer load-key")
            .header("content-type", "application/json")
            .body(Full::new(body(load, &mut contents)))
            .expect("a request");
        for (name, value) in &headers {
            let name = hyper::header::HeaderName::from_bytes(name.as_bytes());
            if let (Ok(name), Ok(value)) = (name, value.parse()) {
                request.headers_mut().insert(name, value);
            }
        }
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

/// Runs `conns` connections to `to` (each request carrying `headers` too), for `warmup`,
/// then measures for `span`.
pub fn run(
    to: SocketAddr,
    load: Load,
    headers: &[(String, String)],
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
            .map(|_| {
                let headers = headers.to_vec();
                tokio::spawn(connection(to, load, headers, (measure_from, until)))
            })
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
