//! `omnid`'s flags. Every setting is optional here so that a flag that was given can be told
//! from one that was not: flags win over the environment, which wins over the configuration
//! file, which wins over the defaults.

use std::path::PathBuf;

use clap::Parser;

/// `omnid`: holds LLM chat sessions so that nothing is ever lost.
#[derive(Debug, Clone, Default, Parser)]
#[command(name = "omnid", version, about, long_about = None)]
pub struct Args {
    /// Configuration file [default: $XDG_CONFIG_HOME/omni/config.toml, else /etc/omni/config.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Print the configuration in effect (secrets redacted) and exit
    #[arg(long)]
    pub print_config: bool,

    /// Print omnid's man page (roff) and exit
    #[arg(long)]
    pub print_man: bool,

    /// Socket to listen on [default: $OMNI_SOCKET, else $RUNTIME_DIRECTORY/omnid.sock, else
    /// $XDG_RUNTIME_DIR/omni/omnid.sock]; a socket handed over by systemd is used as is
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,

    /// Directory of the session store [default: $STATE_DIRECTORY, else $XDG_DATA_HOME/omni,
    /// else ~/.local/share/omni]
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Directory for diagnostic logs [default: $LOGS_DIRECTORY, else $XDG_STATE_HOME/omni,
    /// else ~/.local/state/omni]
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,

    /// Base URL of the Gemini API [default: https://generativelanguage.googleapis.com]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Model to ask [default: gemini-2.5-flash]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// File holding the API key (must not be readable by others) [default: $GEMINI_API_KEY,
    /// else the config file's api_key_file, else the systemd credential gemini_api_key]
    #[arg(long, value_name = "FILE")]
    pub api_key_file: Option<PathBuf>,

    /// Answer from the bundled fake Gemini endpoint on 127.0.0.1 (no API key, no network).
    /// Without --data-dir, demo sessions are kept apart from real ones (in .../omni/demo).
    #[arg(long)]
    pub demo: bool,

    /// Ask the model for thought summaries (thinking models only)
    #[arg(long)]
    pub include_thoughts: bool,

    /// Longest wait for response headers or for the next chunk of an answer [default: 120]
    #[arg(long, value_name = "S")]
    pub stream_idle_timeout_secs: Option<f64>,

    /// Attempts per send, the first included [default: 5]
    #[arg(long, value_name = "N")]
    pub retry_max_attempts: Option<u32>,

    /// First backoff step; it doubles with each retry (with jitter) [default: 1000]
    #[arg(long, value_name = "MS")]
    pub retry_initial_delay_ms: Option<u64>,

    /// Longest wait between attempts; a server asking for longer means an exhausted quota
    /// [default: 60000]
    #[arg(long, value_name = "MS")]
    pub retry_max_delay_ms: Option<u64>,

    /// All attempts and waits of one send together [default: 600]
    #[arg(long, value_name = "S")]
    pub request_deadline_secs: Option<f64>,

    /// Do not retry a stream that broke after it started
    #[arg(long)]
    pub no_retry_stream_errors: bool,

    /// Failed attempts in a row that open an endpoint's circuit breaker [default: 5]
    #[arg(long, value_name = "N")]
    pub breaker_failures: Option<u32>,

    /// How long an open circuit breaker fails sends fast before a probe [default: 30000]
    #[arg(long, value_name = "MS")]
    pub breaker_cooldown_ms: Option<u64>,

    /// Most client connections served at once [default: 64]
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,

    /// Longest a client may take to say Hello, or to send a request it has started
    /// [default: 10]
    #[arg(long, value_name = "S")]
    pub client_timeout_secs: Option<f64>,

    /// A connection waiting this long for its next request is closed (one waiting for an
    /// answer is not idle) [default: 300]
    #[arg(long, value_name = "S")]
    pub idle_timeout_secs: Option<f64>,

    /// Longest wait for in-flight work after SIGTERM before exiting anyway [default: 10]
    #[arg(long, value_name = "S")]
    pub shutdown_grace_secs: Option<f64>,

    /// Free space (MiB) kept on the data directory's file system: writes that would leave
    /// less are refused cleanly, so the store never runs the disk dry [default: 64]
    #[arg(long, value_name = "MB")]
    pub min_free_space_mb: Option<u64>,

    /// Rotated api_errors logs kept at most [default: 10]
    #[arg(long, value_name = "N")]
    pub log_max_archives: Option<usize>,

    /// Diagnostic logs and records older than this many days are removed [default: 30]
    #[arg(long, value_name = "DAYS")]
    pub log_retention_days: Option<u64>,
}
