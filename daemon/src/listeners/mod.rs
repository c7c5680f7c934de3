//! How every HTTP listener accepts and serves its connections (`api.sock`,
//! `--http-listen`, `--proxy-listen`, the demo model): one accept loop over hyper's
//! HTTP/1 connection builder, so each gets the same rules. A TCP connection has
//! `TCP_NODELAY` set (a streamed answer's head and first event are two writes; without it
//! the second waits for the client's delayed acknowledgement, about 40 ms). A connection
//! must send a complete request head within the head timeout, counted from the moment it
//! may send one, so an idle keep-alive connection is closed by the same rule. A listener
//! with a cap answers connections past it with a 503 at once and closes them. Request
//! bodies are read within a time limit too (`body.rs`).

mod body;
mod budget;
mod limits;
mod refuse;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use body::{BodyError, read_body};
pub use budget::{Held, set_body_budget};
pub use limits::{raise_open_files, tcp_cap};
pub use refuse::Busy;

/// A listener whose connections are served here.
pub trait Accept: Send + 'static {
    /// A connection.
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    /// The next connection, ready to be served.
    fn next(&self) -> impl Future<Output = std::io::Result<Self::Io>> + Send;
}

impl Accept for tokio::net::TcpListener {
    type Io = tokio::net::TcpStream;
    async fn next(&self) -> std::io::Result<Self::Io> {
        let (stream, _) = self.accept().await?;
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

impl Accept for tokio::net::UnixListener {
    type Io = tokio::net::UnixStream;
    async fn next(&self) -> std::io::Result<Self::Io> {
        Ok(self.accept().await?.0)
    }
}

/// How one listener serves.
pub struct Rules {
    /// What the listener is, for the log ("the HTTP API on TCP").
    pub name: &'static str,
    /// The longest wait for a complete request head, read for each connection as it
    /// comes (the setting may be reloaded).
    pub head_timeout: Arc<dyn Fn() -> Duration + Send + Sync>,
    /// Connections served at once, and the answer past that; `None`: no cap.
    pub cap: Option<(usize, Busy)>,
}

/// Serves `listener` with `router` on `tracker` until `shutdown`; then connections finish
/// the request under way and close.
pub fn spawn<L: Accept>(
    listener: L,
    router: Router,
    rules: Rules,
    tracker: &TaskTracker,
    shutdown: CancellationToken,
) {
    let connections = tracker.clone();
    tracker.spawn(accept_loop(listener, router, rules, connections, shutdown));
}

async fn accept_loop<L: Accept>(
    listener: L,
    router: Router,
    rules: Rules,
    tracker: TaskTracker,
    shutdown: CancellationToken,
) {
    let permits = rules
        .cap
        .as_ref()
        .map(|(cap, _)| Arc::new(Semaphore::new(*cap)));
    let mut refusals = refuse::Refusals::new(rules.name);
    let mut backoff = Duration::from_millis(10);
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.next() => accepted,
        };
        let io = match accepted {
            Ok(io) => io,
            Err(error) => {
                // Usually out of file descriptors: wait a little rather than spin.
                tracing::warn!(%error, listener = rules.name, "accept failed");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        backoff = Duration::from_millis(10);
        let permit = match (&permits, &rules.cap) {
            (Some(permits), Some((cap, busy))) => match permits.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    refusals.refuse(io, *cap, busy, &tracker);
                    continue;
                }
            },
            _ => None,
        };
        let connection = serve_connection(io, router.clone(), (rules.head_timeout)());
        let shutdown = shutdown.clone();
        tracker.spawn(async move {
            connection_until(connection, shutdown).await;
            drop(permit);
            crate::memory::freed();
        });
    }
}

/// One connection, served by hyper with the head timeout.
fn serve_connection<Io: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    io: Io,
    router: Router,
    head_timeout: Duration,
) -> hyper::server::conn::http1::Connection<TokioIo<Io>, TowerToHyperService<Router>> {
    hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(head_timeout)
        .keep_alive(true)
        .serve_connection(TokioIo::new(io), TowerToHyperService::new(router))
}

/// Runs a connection until it ends; at shutdown, it finishes the request under way.
async fn connection_until<Io: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    connection: hyper::server::conn::http1::Connection<TokioIo<Io>, TowerToHyperService<Router>>,
    shutdown: CancellationToken,
) {
    let started = Instant::now();
    tokio::pin!(connection);
    let ended = tokio::select! {
        ended = connection.as_mut() => ended,
        _ = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = ended {
        tracing::debug!(%error, ms = started.elapsed().as_millis() as u64, "an HTTP connection ended");
    }
}
