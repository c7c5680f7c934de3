//! `omnid`'s configuration: flags, then the environment, then the configuration file, then
//! the defaults. Resolved once at start-up, and again (for what can change) on SIGHUP.

mod args;
mod env;
mod file;
mod key;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::json;

pub use args::Args;
pub use env::Env;
pub use file::FileConfig;
pub use key::KeySource;

use crate::diag::{Policy, Retention};
use crate::provider::{DEFAULT_BASE_URL, ProviderConfig, Redactor, RequestOptions};
use crate::resilience::RetryPolicy;
use crate::store::{DEFAULT_MIN_FREE_BYTES, StoreOptions};
use file::{BreakerSection, LogSection, RetrySection};

/// The model asked when nothing says otherwise.
pub const DEFAULT_MODEL: &str = "gemini-2.5-flash";

/// Everything the daemon needs to run, resolved from flags, environment, file and defaults.
#[derive(Debug, Clone)]
pub struct Config {
    /// The configuration file that was read, if any.
    pub file: Option<PathBuf>,
    /// The socket path.
    pub socket: PathBuf,
    /// The store's directory.
    pub data_dir: PathBuf,
    /// The diagnostic log directory.
    pub log_dir: PathBuf,
    /// How to reach the model.
    pub provider: ProviderConfig,
    /// Where the API key came from.
    pub key_source: KeySource,
    /// `--api-key-file` or the file's `api_key_file`, if one was named.
    pub api_key_file: Option<PathBuf>,
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
    /// How the store guards its disk.
    pub store: StoreOptions,
    /// How long a client may take to say Hello, or to send a frame it has started.
    pub client_timeout: Duration,
    /// How long a connection may wait between requests before it is closed.
    pub idle_timeout: Duration,
}

/// A positive, finite number of seconds as a duration.
fn seconds(name: &str, value: f64) -> anyhow::Result<Duration> {
    match Duration::try_from_secs_f64(value) {
        Ok(duration) if !duration.is_zero() => Ok(duration),
        _ => bail!("{name} must be a positive number of seconds, not {value}"),
    }
}

/// `$XDG_*/omni`, else `~/<fallback>/omni`.
fn xdg_dir(env: &Env, xdg_var: &str, fallback: &[&str]) -> anyhow::Result<PathBuf> {
    if let Some(dir) = env.path(xdg_var) {
        return Ok(dir.join("omni"));
    }
    let mut dir = env
        .path("HOME")
        .with_context(|| format!("neither {xdg_var} nor HOME is set"))?;
    dir.extend(fallback);
    Ok(dir.join("omni"))
}

impl Config {
    /// Reads the configuration file (if any) and resolves everything.
    pub fn load(args: &Args, env: &Env) -> anyhow::Result<Self> {
        let path = file::discover(args.config.as_deref(), env);
        let file = match &path {
            Some(path) => file::read(path)?,
            None => FileConfig::default(),
        };
        Self::resolve(args, env, path, file)
    }

    /// Applies flags > environment > file > defaults.
    pub fn resolve(
        args: &Args,
        env: &Env,
        path: Option<PathBuf>,
        file: FileConfig,
    ) -> anyhow::Result<Self> {
        let retry_file = file.retry.clone().unwrap_or_default();
        let breaker_file = file.breaker.clone().unwrap_or_default();
        let log_file = file.log.clone().unwrap_or_default();

        let socket = args
            .socket
            .clone()
            .or_else(|| env.path("OMNI_SOCKET"))
            .or_else(|| file.socket.clone())
            .or_else(|| env.path("RUNTIME_DIRECTORY").map(|d| d.join("omnid.sock")))
            .or_else(|| {
                env.path("XDG_RUNTIME_DIR")
                    .map(|d| d.join("omni").join("omnid.sock"))
            })
            .context(omni_proto::SocketPathError)?;
        let data_dir = match args
            .data_dir
            .clone()
            .or_else(|| file.data_dir.clone())
            .or_else(|| env.path("STATE_DIRECTORY"))
        {
            Some(dir) => dir,
            None => {
                let dir = xdg_dir(env, "XDG_DATA_HOME", &[".local", "share"])
                    .context("pass --data-dir")?;
                if args.demo { dir.join("demo") } else { dir }
            }
        };
        let log_dir = match args
            .log_dir
            .clone()
            .or_else(|| file.log_dir.clone())
            .or_else(|| env.path("LOGS_DIRECTORY"))
        {
            Some(dir) => dir,
            None => {
                xdg_dir(env, "XDG_STATE_HOME", &[".local", "state"]).context("pass --log-dir")?
            }
        };
        let api_key_file = args
            .api_key_file
            .clone()
            .or_else(|| file.api_key_file.clone());
        let (api_key, key_source) = if args.api_key_file.is_some() {
            key::resolve(args.api_key_file.as_deref(), env, None)?
        } else {
            key::resolve(None, env, file.api_key_file.as_deref())?
        };

        let max_attempts = args
            .retry_max_attempts
            .or(retry_file.max_attempts)
            .unwrap_or(5);
        let initial_delay_ms = args
            .retry_initial_delay_ms
            .or(retry_file.initial_delay_ms)
            .unwrap_or(1000);
        let max_delay_ms = args
            .retry_max_delay_ms
            .or(retry_file.max_delay_ms)
            .unwrap_or(60_000);
        let breaker_failures = args.breaker_failures.or(breaker_file.failures).unwrap_or(5);
        let max_connections = args.max_connections.or(file.max_connections).unwrap_or(64);
        if max_attempts == 0 {
            bail!("retry max_attempts (--retry-max-attempts) must be at least 1");
        }
        if initial_delay_ms > max_delay_ms {
            bail!("the retry initial delay must not exceed the maximum delay");
        }
        if breaker_failures == 0 {
            bail!("breaker failures (--breaker-failures) must be at least 1");
        }
        if max_connections == 0 {
            bail!("--max-connections must be at least 1");
        }
        let retry = RetryPolicy {
            max_attempts,
            initial_delay: Duration::from_millis(initial_delay_ms),
            max_delay: Duration::from_millis(max_delay_ms),
            deadline: seconds(
                "--request-deadline-secs",
                args.request_deadline_secs
                    .or(retry_file.request_deadline_secs)
                    .unwrap_or(600.0),
            )?,
            retry_stream_errors: !args.no_retry_stream_errors
                && retry_file.retry_stream_errors.unwrap_or(true),
        };
        let idle_timeout = seconds(
            "--stream-idle-timeout-secs",
            args.stream_idle_timeout_secs
                .or(file.stream_idle_timeout_secs)
                .unwrap_or(120.0),
        )?;
        Ok(Self {
            file: path,
            socket,
            data_dir,
            log_dir,
            provider: ProviderConfig {
                base_url: args
                    .base_url
                    .clone()
                    .or(file.base_url)
                    .unwrap_or_else(|| DEFAULT_BASE_URL.into()),
                model: args
                    .model
                    .clone()
                    .or(file.model)
                    .unwrap_or_else(|| DEFAULT_MODEL.into()),
                api_key,
                request: RequestOptions {
                    include_thoughts: args.include_thoughts
                        || file.include_thoughts.unwrap_or(false),
                },
                idle_timeout,
            },
            key_source,
            api_key_file,
            demo: args.demo,
            max_connections,
            retry,
            breaker_failures,
            breaker_cooldown: Duration::from_millis(
                args.breaker_cooldown_ms
                    .or(breaker_file.cooldown_ms)
                    .unwrap_or(30_000),
            ),
            retention: Retention {
                max_archives: args
                    .log_max_archives
                    .or(log_file.max_archives)
                    .unwrap_or(10),
                max_age: Duration::from_secs(
                    args.log_retention_days
                        .or(log_file.retention_days)
                        .unwrap_or(30)
                        .saturating_mul(86_400),
                ),
            },
            shutdown_grace: seconds(
                "--shutdown-grace-secs",
                args.shutdown_grace_secs
                    .or(file.shutdown_grace_secs)
                    .unwrap_or(10.0),
            )?,
            client_timeout: seconds(
                "--client-timeout-secs",
                args.client_timeout_secs
                    .or(file.client_timeout_secs)
                    .unwrap_or(10.0),
            )?,
            idle_timeout: seconds(
                "--idle-timeout-secs",
                args.idle_timeout_secs
                    .or(file.idle_timeout_secs)
                    .unwrap_or(300.0),
            )?,
            store: StoreOptions {
                min_free_bytes: args
                    .min_free_space_mb
                    .or(file.min_free_space_mb)
                    .map_or(DEFAULT_MIN_FREE_BYTES, |mb| mb.saturating_mul(1024 * 1024)),
            },
        })
    }

    /// The configuration in effect in the file's own format (so it can be saved as one),
    /// with where the file and the key came from as comments. Never the key itself.
    pub fn print(&self) -> anyhow::Result<String> {
        let file = FileConfig {
            socket: Some(self.socket.clone()),
            data_dir: Some(self.data_dir.clone()),
            log_dir: Some(self.log_dir.clone()),
            base_url: Some(self.provider.base_url.clone()),
            model: Some(self.provider.model.clone()),
            api_key_file: self.api_key_file.clone(),
            include_thoughts: Some(self.provider.request.include_thoughts),
            stream_idle_timeout_secs: Some(self.provider.idle_timeout.as_secs_f64()),
            max_connections: Some(self.max_connections),
            shutdown_grace_secs: Some(self.shutdown_grace.as_secs_f64()),
            min_free_space_mb: Some(self.store.min_free_bytes / (1024 * 1024)),
            client_timeout_secs: Some(self.client_timeout.as_secs_f64()),
            idle_timeout_secs: Some(self.idle_timeout.as_secs_f64()),
            retry: Some(RetrySection {
                max_attempts: Some(self.retry.max_attempts),
                initial_delay_ms: Some(self.retry.initial_delay.as_millis() as u64),
                max_delay_ms: Some(self.retry.max_delay.as_millis() as u64),
                request_deadline_secs: Some(self.retry.deadline.as_secs_f64()),
                retry_stream_errors: Some(self.retry.retry_stream_errors),
            }),
            breaker: Some(BreakerSection {
                failures: Some(self.breaker_failures),
                cooldown_ms: Some(self.breaker_cooldown.as_millis() as u64),
            }),
            log: Some(LogSection {
                max_archives: Some(self.retention.max_archives),
                retention_days: Some(self.retention.max_age.as_secs() / 86_400),
            }),
        };
        let source = match &self.file {
            Some(path) => path.display().to_string(),
            None => "none".to_string(),
        };
        Ok(format!(
            "# omnid configuration in effect (flags > environment > file > defaults)\n\
             # configuration file: {source}\n\
             # API key: {} (the value is never printed)\n{}",
            self.key_source,
            toml::to_string(&file).context("cannot print the configuration")?
        ))
    }

    /// The diagnostics policy this configuration implies: redact its key, record it
    /// (redacted) with every error, keep the log directory's history as it says.
    pub fn diag_policy(&self) -> Policy {
        Policy {
            redactor: Redactor::new(self.provider.api_key.as_ref().map(|k| k.expose())),
            config: self.redacted(),
            retention: self.retention.clone(),
        }
    }

    /// The configuration as diagnostics record it: everything that shapes a request, and
    /// never the key itself.
    pub fn redacted(&self) -> serde_json::Value {
        json!({
            "file": self.file.as_ref().map(|p| p.display().to_string()),
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
            "min_free_space_mb": self.store.min_free_bytes / (1024 * 1024),
            "client_timeout_secs": self.client_timeout.as_secs_f64(),
            "idle_timeout_secs": self.idle_timeout.as_secs_f64(),
            "demo": self.demo,
        })
    }
}

#[cfg(test)]
mod tests;
