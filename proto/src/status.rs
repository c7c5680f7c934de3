//! What `omnictl status` (and `GET /v1/status`) shows: the daemon, its store, its circuit
//! breakers and the proxy (in all and per endpoint). Field names are part of the CLI contract, as in `view.rs`.

use serde::{Deserialize, Serialize};

/// What `omnictl status` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DaemonStatus {
    /// The daemon's package version.
    pub version: String,
    /// Its protocol version.
    pub protocol_version: u32,
    /// Its process id.
    pub pid: u32,
    /// Time since it started.
    pub uptime_ms: u64,
    /// The socket it listens on.
    pub socket: String,
    /// The HTTP/JSON API's socket (`api.sock`).
    pub api_socket: String,
    /// The HTTP/JSON API's loopback TCP address, when it listens there (bearer token).
    pub http_address: Option<String>,
    /// The web app's loopback address, when it is served (`--web-listen`).
    pub web_address: Option<String>,
    /// Its data directory (the sled store).
    pub data_dir: String,
    /// Its log directory.
    pub log_dir: String,
    /// Bytes the store occupies on disk.
    pub store_bytes: u64,
    /// Sessions in the store.
    pub sessions: u64,
    /// Sessions loaded in memory now; one idle for `session_idle_secs` is unloaded.
    pub sessions_loaded: u64,
    /// Changes committed to the store since start-up.
    pub store_commits: u64,
    /// Syncs to disk since start-up (concurrent commits share one).
    pub store_syncs: u64,
    /// Client connections open now (this one included).
    pub connections: u32,
    /// Prompts being answered now.
    pub sends_in_flight: u32,
    /// The model asked.
    pub model: String,
    /// How full the current session's context is, when there is a current session.
    pub current_context: Option<crate::context::ContextGauge>,
    /// The model API's base URL.
    pub base_url: String,
    /// The circuit breaker of each model endpoint.
    pub breakers: Vec<BreakerStatus>,
    /// Diagnostic records that could not be written since start-up.
    pub log_write_failures: u64,
    /// The configuration file in use, if any.
    pub config_file: Option<String>,
    /// Successful configuration reloads (SIGHUP) since start-up.
    pub config_reloads: u64,
    /// Rejected configuration reloads since start-up.
    pub config_reload_failures: u64,
    /// Whether the store takes writes.
    pub store_health: StoreHealth,
    /// Sessions found damaged (readable, but refusing changes).
    pub damaged_sessions: Vec<DamagedSession>,
    /// The model APIs' proxy, when it listens.
    pub proxy: Option<ProxyStatus>,
    /// Tokens and cost of the answers stored today (local time), proxied ones included.
    pub usage_today: crate::usage::UsageTotals,
    /// Which store holds the sessions: `embedded` (sled in `data_dir`) or `postgres` (a
    /// database several omnid share).
    pub store_kind: String,
    /// The shared store's URL, without its password (none for the embedded store).
    pub store_url: Option<String>,
    /// This omnid's name among those sharing a store (`--instance-name`; the host name by
    /// default).
    pub instance: String,
}

/// What the model APIs' proxy has done since the daemon started, in all and per endpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProxyStatus {
    /// Where it listens (`127.0.0.1:PORT`).
    pub address: String,
    /// Requests forwarded (refused ones not counted).
    pub requests: u64,
    /// Requests that needed more than one attempt and then succeeded.
    pub healed: u64,
    /// Requests that failed after retrying (or could not be retried).
    pub failed: u64,
    /// The same counts for each API it serves, every one listed (zeros too).
    pub endpoints: Vec<ProxyEndpointStatus>,
}

/// What one of the proxy's APIs has done since the daemon started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProxyEndpointStatus {
    /// The API: `gemini`, `openai` (Chat Completions and `/v1/models`), `openai-responses`
    /// or `anthropic`; a recorded session's origin names it too.
    pub api: String,
    /// Requests forwarded (refused ones not counted).
    pub requests: u64,
    /// Requests that needed more than one attempt and then succeeded.
    pub healed: u64,
    /// Requests that failed after retrying (or could not be retried).
    pub failed: u64,
}

/// Whether the store takes writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HealthState {
    /// Writes succeed.
    Ok,
    /// Writes fail (a full disk, a failing device); reads still work.
    Failing,
}

/// The store's health for `omnictl status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StoreHealth {
    /// Ok or failing.
    pub state: HealthState,
    /// While failing: since when, ms since the epoch.
    pub since_ms: Option<u64>,
    /// While failing: the latest failure.
    pub reason: Option<String>,
}

/// A session whose records disagree with each other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DamagedSession {
    /// The session's id.
    pub id: String,
    /// What is wrong.
    pub reason: String,
}

/// The state of a circuit breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BreakerState {
    /// Requests flow.
    Closed,
    /// Requests fail fast until the cool-down ends.
    Open,
    /// One probe request may go through; its outcome decides.
    HalfOpen,
}

/// One endpoint's circuit breaker, for `omnictl status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BreakerStatus {
    /// The endpoint it guards.
    pub endpoint: String,
    /// Its state.
    pub state: BreakerState,
    /// Failed attempts in a row.
    pub consecutive_failures: u32,
    /// While open: time until a probe is let through.
    pub next_probe_in_ms: Option<u64>,
}
