//! `omnid`'s flags and the configuration they resolve to.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;

use crate::diag::Retention;
use crate::provider::{ApiKey, DEFAULT_BASE_URL, ProviderConfig, RequestOptions};
use crate::resilience::RetryPolicy;

/// A positive, finite number of seconds as a duration.
fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    match Duration::try_from_secs_f64(value) {
        Ok(duration) if !duration.is_zero() => Ok(duration),
        _ => bail!("{flag} must be a positive number of seconds, not {value}"),
    }
}

/// The environment variable holding the Gemini API key.
pub const API_KEY_ENV: &str = "GEMINI_API_KEY";

/// `omnid`: holds LLM chat sessions so that nothing is ever lost.
#[derive(Debug, Parser)]
#[command(name = "omnid", version, about, long_about = None)]
pub struct Args {
    /// Socket to listen on [default: $OMNI_SOCKET, else $XDG_RUNTIME_DIR/omni/omnid.sock]
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,

    /// Directory of the session store [default: $XDG_DATA_HOME/omni, else ~/.local/share/omni]
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Directory for diagnostic logs [default: $XDG_STATE_HOME/omni, else ~/.local/state/omni]
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,

    /// Base URL of the Gemini API
    #[arg(long, value_name = "URL", default_value = DEFAULT_BASE_URL)]
    pub base_url: String,

    /// Model to ask
    #[arg(long, value_name = "NAME", default_value = "gemini-2.5-flash")]
    pub model: String,

    /// Answer from the bundled fake Gemini endpoint on 127.0.0.1 (no API key, no network).
    /// Without --data-dir, demo sessions are kept apart from real ones (in .../omni/demo).
    #[arg(long)]
    pub demo: bool,

    /// Ask the model for thought summaries (thinking models only)
    #[arg(long)]
    pub include_thoughts: bool,

    /// Longest wait for response headers or for the next chunk of an answer (decimals allowed)
    #[arg(long, value_name = "S", default_value_t = 120.0)]
    pub stream_idle_timeout_secs: f64,

    /// Attempts per send, the first included
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retry_max_attempts: u32,

    /// First backoff step; it doubles with each retry (with jitter)
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub retry_initial_delay_ms: u64,

    /// Longest wait between attempts; a server asking for longer means an exhausted quota
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    pub retry_max_delay_ms: u64,

    /// All attempts and waits of one send together (decimals allowed)
    #[arg(long, value_name = "S", default_value_t = 600.0)]
    pub request_deadline_secs: f64,

    /// Do not retry a stream that broke after it started
    #[arg(long)]
    pub no_retry_stream_errors: bool,

    /// Failed attempts in a row that open an endpoint's circuit breaker
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub breaker_failures: u32,

    /// How long an open circuit breaker fails sends fast before letting a probe through
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    pub breaker_cooldown_ms: u64,

    /// Most client connections served at once; more are refused with a clear message
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_connections: usize,

    /// Rotated api_errors logs kept at most
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub log_max_archives: usize,

    /// Diagnostic logs and records older than this many days are removed
    #[arg(long, value_name = "DAYS", default_value_t = 30)]
    pub log_retention_days: u64,

    /// Longest wait for in-flight work after SIGTERM before exiting anyway
    #[arg(long, value_name = "S", default_value_t = 10)]
    pub shutdown_grace_secs: u64,
}

/// Everything the daemon needs to run, resolved from flags and environment.
#[derive(Debug, Clone)]
pub struct Config {
    /// The socket path.
    pub socket: PathBuf,
    /// The store's directory.
    pub data_dir: PathBuf,
    /// The diagnostic log directory.
    pub log_dir: PathBuf,
    /// How to reach the model.
    pub provider: ProviderConfig,
    /// Serve from the bundled fake endpoint.
    pub demo: bool,
    /// Connection cap.
    pub max_connections: usize,
    /// How sends retry.
    pub retry: RetryPolicy,
    /// Failed attempts in a row that open the circuit breaker.
    pub breaker_failures: u32,
    /// How long an open breaker stays open.
    pub breaker_cooldown: Duration,
    /// What the log directory keeps.
    pub retention: Retention,
    /// Shutdown drain deadline.
    pub shutdown_grace: Duration,
}

fn home_subdir(xdg_var: &str, fallback: &[&str]) -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os(xdg_var).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir).join("omni"));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .with_context(|| format!("neither {xdg_var} nor HOME is set"))?;
    let mut dir = PathBuf::from(home);
    dir.extend(fallback);
    Ok(dir.join("omni"))
}

impl Config {
    /// Resolves flags and environment (`OMNI_SOCKET`, `XDG_*`, `GEMINI_API_KEY`).
    pub fn from_args(args: Args) -> anyhow::Result<Self> {
        let socket = omni_proto::resolve_socket_path(args.socket)?;
        let data_dir = match args.data_dir {
            Some(dir) => dir,
            None => {
                let dir = home_subdir("XDG_DATA_HOME", &[".local", "share"])
                    .context("pass --data-dir")?;
                if args.demo { dir.join("demo") } else { dir }
            }
        };
        let log_dir = match args.log_dir {
            Some(dir) => dir,
            None => {
                home_subdir("XDG_STATE_HOME", &[".local", "state"]).context("pass --log-dir")?
            }
        };
        let api_key = match std::env::var(API_KEY_ENV) {
            Ok(key) if !key.trim().is_empty() => {
                Some(ApiKey::new(&key).with_context(|| format!("{API_KEY_ENV} is not usable"))?)
            }
            _ => None,
        };
        if args.max_connections == 0 {
            bail!("--max-connections must be at least 1");
        }
        if args.retry_max_attempts == 0 {
            bail!("--retry-max-attempts must be at least 1");
        }
        if args.retry_initial_delay_ms > args.retry_max_delay_ms {
            bail!("--retry-initial-delay-ms must not exceed --retry-max-delay-ms");
        }
        if args.breaker_failures == 0 {
            bail!("--breaker-failures must be at least 1");
        }
        let retry = RetryPolicy {
            max_attempts: args.retry_max_attempts,
            initial_delay: Duration::from_millis(args.retry_initial_delay_ms),
            max_delay: Duration::from_millis(args.retry_max_delay_ms),
            deadline: seconds("--request-deadline-secs", args.request_deadline_secs)?,
            retry_stream_errors: !args.no_retry_stream_errors,
        };
        let idle_timeout = seconds("--stream-idle-timeout-secs", args.stream_idle_timeout_secs)?;
        Ok(Self {
            socket,
            data_dir,
            log_dir,
            provider: ProviderConfig {
                base_url: args.base_url,
                model: args.model,
                api_key,
                request: RequestOptions {
                    include_thoughts: args.include_thoughts,
                },
                idle_timeout,
            },
            demo: args.demo,
            max_connections: args.max_connections,
            retry,
            breaker_failures: args.breaker_failures,
            breaker_cooldown: Duration::from_millis(args.breaker_cooldown_ms),
            retention: Retention {
                max_archives: args.log_max_archives,
                max_age: Duration::from_secs(args.log_retention_days.saturating_mul(86_400)),
            },
            shutdown_grace: Duration::from_secs(args.shutdown_grace_secs),
        })
    }

    /// The socket's directory, if it has one.
    pub fn socket_dir(&self) -> Option<&Path> {
        self.socket.parent().filter(|p| !p.as_os_str().is_empty())
    }
}

impl Config {
    /// The configuration as diagnostics record it: everything that shapes a request, and
    /// never the key itself.
    pub fn redacted(&self) -> serde_json::Value {
        serde_json::json!({
            "socket": self.socket.display().to_string(),
            "data_dir": self.data_dir.display().to_string(),
            "log_dir": self.log_dir.display().to_string(),
            "base_url": self.provider.base_url,
            "model": self.provider.model,
            "api_key": if self.provider.api_key.is_some() { "set (redacted)" } else { "not set" },
            "include_thoughts": self.provider.request.include_thoughts,
            "stream_idle_timeout_secs": self.provider.idle_timeout.as_secs_f64(),
            "retry": {
                "max_attempts": self.retry.max_attempts,
                "initial_delay_ms": self.retry.initial_delay.as_millis() as u64,
                "max_delay_ms": self.retry.max_delay.as_millis() as u64,
                "request_deadline_secs": self.retry.deadline.as_secs_f64(),
                "retry_stream_errors": self.retry.retry_stream_errors,
            },
            "breaker": {
                "failures": self.breaker_failures,
                "cooldown_ms": self.breaker_cooldown.as_millis() as u64,
            },
            "log": {
                "max_archives": self.retention.max_archives,
                "retention_days": self.retention.max_age.as_secs() / 86_400,
            },
            "demo": self.demo,
        })
    }
}
