//! The daemon's shared services, built once at start and handed to every session's actor
//! and, through the server's state, to every request handler: the store, diagnostics, the
//! settings in effect (swapped whole on reload), the lifecycle, and the counters `status`
//! shows.

mod current;
mod endpoints;
mod known_windows;
mod live;
pub mod windows;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::time::Instant;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use current::CurrentSession;
pub use endpoints::Endpoint;
pub use live::{Live, Swap};
pub use windows::ModelWindows;

use crate::diag::Diagnostics;
use crate::store::Store;
use crate::usage::UsageToday;

/// Counts `status` and systemd's `STATUS=` report.
#[derive(Debug)]
pub struct Counters {
    /// When the daemon started.
    pub started: Instant,
    /// Open client connections.
    pub connections: AtomicU32,
    /// Prompts being answered now.
    pub sends_in_flight: AtomicU32,
    /// Successful configuration reloads (SIGHUP).
    pub reloads: AtomicU64,
    /// Rejected configuration reloads.
    pub reload_failures: AtomicU64,
    /// What the model APIs' proxy has done.
    pub proxy: ProxyCounters,
    /// Where the HTTP API listens on TCP, once it does.
    pub http_address: std::sync::OnceLock<std::net::SocketAddr>,
}

/// What the model APIs' proxy has done since the daemon started: in all, and per API it
/// serves (its endpoints, named as the proxy names them: `gemini`, `openai`, ...).
#[derive(Debug, Default)]
pub struct ProxyCounters {
    /// Where it listens, once it does.
    pub address: std::sync::OnceLock<std::net::SocketAddr>,
    /// Every endpoint's requests together.
    pub all: ProxyCounts,
    /// Each endpoint's, in the order the proxy lists them; set once, when it starts.
    pub endpoints: std::sync::OnceLock<Vec<(&'static str, ProxyCounts)>>,
}

/// What became of the requests through the proxy (in all, or of one endpoint).
#[derive(Debug, Default)]
pub struct ProxyCounts {
    /// Requests forwarded (refused ones not counted).
    pub requests: AtomicU64,
    /// Requests that needed more than one attempt and then succeeded.
    pub healed: AtomicU64,
    /// Requests that failed after retrying (or could not be retried).
    pub failed: AtomicU64,
}

/// One thing that happened to a request through the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProxyTally {
    /// It was forwarded.
    Request,
    /// It succeeded after more than one attempt.
    Healed,
    /// It failed.
    Failed,
}

impl ProxyCounts {
    fn add(&self, tally: ProxyTally) {
        let counter = match tally {
            ProxyTally::Request => &self.requests,
            ProxyTally::Healed => &self.healed,
            ProxyTally::Failed => &self.failed,
        };
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

impl ProxyCounters {
    /// Counts `tally` in all and for the endpoint `api` (if the proxy listed it).
    pub fn add(&self, api: &str, tally: ProxyTally) {
        self.all.add(tally);
        let endpoints = self.endpoints.get().into_iter().flatten();
        if let Some((_, counts)) = endpoints.into_iter().find(|(name, _)| *name == api) {
            counts.add(tally);
        }
    }
}

impl Default for Counters {
    fn default() -> Self {
        Self {
            started: Instant::now(),
            connections: AtomicU32::new(0),
            sends_in_flight: AtomicU32::new(0),
            reloads: AtomicU64::new(0),
            reload_failures: AtomicU64::new(0),
            proxy: ProxyCounters::default(),
            http_address: std::sync::OnceLock::new(),
        }
    }
}

/// What the session layer and the handlers work with.
pub struct Services {
    /// The store.
    pub store: Arc<Store>,
    /// Where failures are written down.
    pub diag: Arc<Diagnostics>,
    /// The settings in effect (configuration, model API, retry policy, breaker,
    /// diagnostics policy), swapped whole on SIGHUP; a send keeps the ones it started with.
    pub live: Swap<Live>,
    /// Cancelled when the daemon shuts down.
    pub shutdown: CancellationToken,
    /// Tracks actor, stream and connection tasks so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// The most recently used session.
    pub current: CurrentSession,
    /// What `status` counts.
    pub counters: Counters,
    /// Today's answers' tokens, for `status`.
    pub usage_today: UsageToday,
    /// Each model's context window, and what the APIs said of theirs.
    pub windows: ModelWindows,
}
