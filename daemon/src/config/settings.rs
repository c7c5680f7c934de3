//! Every setting of `omnid`, declared once: the flags, the configuration file's keys, the
//! precedence, `--print-config`, diagnostics' redacted copy, what SIGHUP applies and the
//! the reference table (docs/configuration.md) all come from here (see [`super::declare`]).

use std::path::PathBuf;

use super::declare::settings;
use super::forms::{ModelList, kind_default, no_models};
use super::key::ApiKeyFrom;
use super::places::{default_data_dir, default_instance_name, default_log_dir, default_socket};
use super::store_url::StoreUrl;

/// The model asked when nothing says otherwise.
pub const DEFAULT_MODEL: &str = "gemini-2.5-flash";

settings! {
    /// Where to listen (a socket handed over by systemd is used as is).
    socket: PathBuf {
        key: "socket",
        flag: value("socket", "PATH"),
        env: var(omni_proto::SOCKET_ENV),
        default: from(default_socket, "`$RUNTIME_DIRECTORY/omnid.sock`, else `$XDG_RUNTIME_DIR/omni/omnid.sock`"),
        reloads: false,
        secret: false,
    }
    /// Also serve the HTTP API on this loopback address (`127.0.0.1:PORT`); every request
    /// there must carry the bearer token. The API is always served on `api.sock` beside the
    /// control socket.
    http_listen: std::net::SocketAddr {
        key: "http.listen",
        flag: value("http-listen", "ADDR"),
        default: none,
        reloads: false,
        secret: false,
    }
    /// The HTTP API's bearer token: a file readable by its owner only, created at start
    /// when missing.
    http_token_file: PathBuf {
        key: "http.token_file",
        flag: value("http-token-file", "FILE"),
        default: derived("`api.token` beside the control socket"),
        reloads: false,
        secret: true,
    }
    /// Serve the model APIs' endpoint (Gemini, OpenAI, Anthropic) on this loopback address
    /// (`127.0.0.1:PORT`): their clients pointed at it get Omni's retries, diagnostics and
    /// recording.
    proxy_listen: std::net::SocketAddr {
        key: "proxy.listen",
        flag: value("proxy-listen", "ADDR"),
        default: none,
        reloads: false,
        secret: false,
    }
    /// Serve the web app (every session, its tree, live answers) on this loopback address
    /// (`127.0.0.1:PORT`); `omnictl web` prints the one-time link that logs a browser in.
    web_listen: std::net::SocketAddr {
        key: "web.listen",
        flag: value("web-listen", "ADDR"),
        default: none,
        reloads: false,
        secret: false,
    }
    /// Forward whatever API key a proxy client brings, instead of accepting only the key
    /// omnid itself is configured with.
    proxy_accept_any_key: bool {
        key: "proxy.accept_any_key",
        flag: switch("proxy-accept-any-key", true),
        default: fixed(false),
        reloads: true,
        secret: false,
    }
    /// Record the proxy's conversations as sessions; off, it only relays (to compare the
    /// two under load, or for traffic not worth keeping).
    proxy_record: bool {
        key: "proxy.record",
        flag: switch("proxy-no-record", false),
        default: fixed(true),
        reloads: true,
        secret: false,
    }
    /// What the proxy does with a history the API would reject: `forward` it unchanged, or
    /// `repair` the known poisonings first (either way it is written down).
    proxy_history: String {
        key: "proxy.history",
        flag: value("proxy-history", "POLICY"),
        default: text("forward"),
        reloads: true,
        secret: false,
    }
    /// The session store's directory.
    data_dir: PathBuf {
        key: "data_dir",
        flag: value("data-dir", "DIR"),
        default: from(default_data_dir, "`$STATE_DIRECTORY`, else `$XDG_DATA_HOME/omni`, else `~/.local/share/omni` (`.../omni/demo` with `--demo`)"),
        reloads: false,
        secret: false,
    }
    /// Where diagnostic logs and error records go.
    log_dir: PathBuf {
        key: "log_dir",
        flag: value("log-dir", "DIR"),
        default: from(default_log_dir, "`$LOGS_DIRECTORY`, else `$XDG_STATE_HOME/omni`, else `~/.local/state/omni`"),
        reloads: false,
        secret: false,
    }
    /// The default provider's kind: `gemini`, `openai` for an OpenAI-compatible server
    /// (its key in `OPENAI_API_KEY` or `--api-key-file`), or `anthropic` (its key in
    /// `ANTHROPIC_API_KEY` or `--api-key-file`). More providers are named in the file's
    /// `[providers.NAME]` tables.
    provider: String {
        key: "provider",
        flag: value("provider", "KIND"),
        default: text("gemini"),
        reloads: true,
        secret: false,
    }
    /// The default provider's API (any server speaking its wire format).
    base_url: String {
        key: "base_url",
        flag: value("base-url", "URL"),
        default: maybe(kind_default, "`https://generativelanguage.googleapis.com` (gemini), `https://api.openai.com/v1` (openai), `https://api.anthropic.com` (anthropic)"),
        reloads: true,
        secret: false,
    }
    /// The model sessions ask unless they name their own: `MODEL` (of the default
    /// provider) or `PROVIDER/MODEL`.
    model: String {
        key: "model",
        flag: value("model", "MODEL"),
        default: text(DEFAULT_MODEL),
        reloads: true,
        secret: false,
    }
    /// Models asked in turn, with the same context, when a send's own model is out of
    /// quota, its circuit breaker is open, or it stays overloaded (never after a 400).
    fallback: ModelList {
        key: "fallback",
        flag: value("fallback", "MODEL,..."),
        default: from(no_models, "none"),
        reloads: true,
        secret: false,
    }
    /// A file holding the default provider's API key, readable by its owner only
    /// (`GEMINI_API_KEY`, or `OPENAI_API_KEY` for `openai`, `ANTHROPIC_API_KEY` for
    /// `anthropic`, may hold the key instead).
    api_key: ApiKeyFrom {
        key: "api_key_file",
        flag: parsed("api-key-file", "FILE", ApiKeyFrom::flag),
        env: parsed("GEMINI_API_KEY", ApiKeyFrom::env),
        default: maybe(ApiKeyFrom::credential, "`$CREDENTIALS_DIRECTORY/gemini_api_key` if present"),
        reloads: true,
        secret: true,
    }
    /// Ask thinking models for thought summaries.
    include_thoughts: bool {
        key: "include_thoughts",
        flag: switch("include-thoughts", true),
        default: fixed(false),
        reloads: true,
        secret: false,
    }
    /// The longest answer, in tokens, asked of an API that needs a limit (Anthropic's
    /// `max_tokens`; extended thinking, with `include_thoughts`, gets half of it).
    max_tokens: u32 {
        key: "max_tokens",
        flag: value("max-tokens", "N"),
        default: fixed(8192),
        reloads: true,
        secret: false,
    }
    /// Longest wait, in seconds, for response headers or the next chunk of an answer.
    stream_idle_timeout_secs: f64 {
        key: "stream_idle_timeout_secs",
        flag: value("stream-idle-timeout-secs", "S"),
        default: fixed(120.0),
        reloads: true,
        secret: false,
    }
    /// Attempts per send, the first included.
    retry_max_attempts: u32 {
        key: "retry.max_attempts",
        flag: value("retry-max-attempts", "N"),
        default: fixed(5),
        reloads: true,
        secret: false,
    }
    /// First backoff step in milliseconds; it doubles with each retry, with jitter.
    retry_initial_delay_ms: u64 {
        key: "retry.initial_delay_ms",
        flag: value("retry-initial-delay-ms", "MS"),
        default: fixed(1000),
        reloads: true,
        secret: false,
    }
    /// Longest wait between attempts in milliseconds; a server asking for longer means an
    /// exhausted quota.
    retry_max_delay_ms: u64 {
        key: "retry.max_delay_ms",
        flag: value("retry-max-delay-ms", "MS"),
        default: fixed(60000),
        reloads: true,
        secret: false,
    }
    /// All attempts and waits of one send together, in seconds.
    request_deadline_secs: f64 {
        key: "retry.request_deadline_secs",
        flag: value("request-deadline-secs", "S"),
        default: fixed(600.0),
        reloads: true,
        secret: false,
    }
    /// Retry a stream that broke after it started (`--no-retry-stream-errors`: do not).
    retry_stream_errors: bool {
        key: "retry.retry_stream_errors",
        flag: switch("no-retry-stream-errors", false),
        default: fixed(true),
        reloads: true,
        secret: false,
    }
    /// Failed attempts in a row that open an endpoint's circuit breaker.
    breaker_failures: u32 {
        key: "breaker.failures",
        flag: value("breaker-failures", "N"),
        default: fixed(5),
        reloads: true,
        secret: false,
    }
    /// How long, in milliseconds, an open circuit breaker fails sends fast before a probe.
    breaker_cooldown_ms: u64 {
        key: "breaker.cooldown_ms",
        flag: value("breaker-cooldown-ms", "MS"),
        default: fixed(30000),
        reloads: true,
        secret: false,
    }
    /// A session whose context passes this share of its model's window (percent) warns
    /// that the wall is coming.
    context_warn_at: u8 {
        key: "context.warn_at",
        flag: value("context-warn-at", "PERCENT"),
        default: fixed(80),
        reloads: true,
        secret: false,
    }
    /// With `context.auto_compact`, a send whose context would pass this share of its
    /// model's window (percent) compacts the session first.
    context_compact_at: u8 {
        key: "context.compact_at",
        flag: value("context-compact-at", "PERCENT"),
        default: fixed(90),
        reloads: true,
        secret: false,
    }
    /// Compact a session by itself, before sending, once its context passes
    /// `context.compact_at`.
    context_auto_compact: bool {
        key: "context.auto_compact",
        flag: switch("context-auto-compact", true),
        default: fixed(false),
        reloads: true,
        secret: false,
    }
    /// The model that writes a compaction's summary (`MODEL` or `PROVIDER/MODEL`); unset,
    /// the session's own.
    context_compact_model: String {
        key: "context.compact_model",
        flag: value("context-compact-model", "MODEL"),
        default: none,
        reloads: true,
        secret: false,
    }
    /// A tool result larger than this many bytes is sent to the model cut to about this
    /// size, with a marked elision (the session keeps it whole); 0 never cuts.
    context_max_tool_result: usize {
        key: "context.max_tool_result",
        flag: value("context-max-tool-result", "BYTES"),
        default: fixed(262144),
        reloads: true,
        secret: false,
    }
    /// Client connections served at once; more get a clear refusal.
    max_connections: usize {
        key: "max_connections",
        flag: value("max-connections", "N"),
        default: fixed(64),
        reloads: false,
        secret: false,
    }
    /// Connections each TCP listener (`--http-listen`, `--proxy-listen`) serves at once;
    /// past that a connection is answered 503 and closed. Lowered at start to fit the
    /// limit on open files, less a reserve that keeps the sockets served.
    tcp_max_connections: usize {
        key: "tcp_max_connections",
        flag: value("tcp-max-connections", "N"),
        default: fixed(512),
        reloads: false,
        secret: false,
    }
    /// Longest a client may take, in seconds, to say Hello or to finish sending a request
    /// it has started (over HTTP: its head, then its body; a keep-alive connection must
    /// start its next request within it too).
    client_timeout_secs: f64 {
        key: "client_timeout_secs",
        flag: value("client-timeout-secs", "S"),
        default: fixed(10.0),
        reloads: true,
        secret: false,
    }
    /// A connection waiting this many seconds for its next request is closed (one waiting
    /// for an answer is not idle).
    idle_timeout_secs: f64 {
        key: "idle_timeout_secs",
        flag: value("idle-timeout-secs", "S"),
        default: fixed(300.0),
        reloads: true,
        secret: false,
    }
    /// A session with nothing to do for this many seconds is unloaded: its memory is
    /// freed, and the next request loads it again from the store.
    session_idle_secs: f64 {
        key: "session_idle_secs",
        flag: value("session-idle-secs", "S"),
        default: fixed(300.0),
        reloads: true,
        secret: false,
    }
    /// Days a session stays in the trash (`omnictl delete`) before it is purged for good;
    /// 0 keeps it until `omnictl purge`.
    trash_keep_days: u64 {
        key: "trash.keep_days",
        flag: value("trash-keep-days", "DAYS"),
        default: fixed(30),
        reloads: true,
        secret: false,
    }
    /// Keep sessions in this PostgreSQL database (`postgres://USER@HOST:PORT/DB`), which
    /// several omnid may share, not in the data directory; a password in it is never shown.
    store_url: StoreUrl {
        key: "store_url",
        flag: value("store-url", "URL"),
        env: var("OMNI_STORE_URL"),
        default: none,
        reloads: false,
        secret: true,
    }
    /// This omnid's name among those sharing a store (in `status`, and in who holds a
    /// session busy).
    instance_name: String {
        key: "instance_name",
        flag: value("instance-name", "NAME"),
        default: from(default_instance_name, "the host name"),
        reloads: false,
        secret: false,
    }
    /// Seconds a session's lease on a shared store lasts unless renewed: how long a
    /// session stays busy after the omnid changing it stopped without letting it go.
    store_lease_secs: f64 {
        key: "store_lease_secs",
        flag: value("store-lease-secs", "S"),
        default: fixed(10.0),
        reloads: false,
        secret: false,
    }
    /// The shared store's password: a file readable by its owner only.
    store_password_file: PathBuf {
        key: "store_password_file",
        flag: value("store-password-file", "FILE"),
        default: none,
        reloads: false,
        secret: true,
    }
    /// Free space (MiB) kept on the data directory's file system: a write that would leave
    /// less is refused cleanly, so the store never runs the disk dry.
    min_free_space_mb: u64 {
        key: "min_free_space_mb",
        flag: value("min-free-space-mb", "MB"),
        default: fixed(64),
        reloads: false,
        secret: false,
    }
    /// Memory (MiB) sled keeps for the store's pages it read or wrote: small, since a
    /// long-running daemon would otherwise fill it with every session ever touched.
    store_cache_mb: u64 {
        key: "store.cache_mb",
        flag: value("store-cache-mb", "MB"),
        default: fixed(2),
        reloads: false,
        secret: false,
    }
    /// Request bodies (MiB) read and held at once across every connection (the proxy's, the
    /// HTTP API's); a body that finds no room waits up to `client_timeout_secs`, then is
    /// answered 503.
    request_body_budget_mb: u64 {
        key: "request_body_budget_mb",
        flag: value("request-body-budget-mb", "MB"),
        default: fixed(256),
        reloads: false,
        secret: false,
    }
    /// Longest wait, in seconds, for in-flight work after SIGTERM before exiting anyway.
    shutdown_grace_secs: f64 {
        key: "shutdown_grace_secs",
        flag: value("shutdown-grace-secs", "S"),
        default: fixed(10.0),
        reloads: false,
        secret: false,
    }
    /// Rotated `api_errors` logs kept at most.
    log_max_archives: usize {
        key: "log.max_archives",
        flag: value("log-max-archives", "N"),
        default: fixed(10),
        reloads: true,
        secret: false,
    }
    /// Diagnostic logs and error records older than this many days are removed.
    log_retention_days: u64 {
        key: "log.retention_days",
        flag: value("log-retention-days", "DAYS"),
        default: fixed(30),
        reloads: true,
        secret: false,
    }
}
