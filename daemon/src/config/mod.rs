//! `omnid`'s configuration. Every setting is declared once, in [`settings`], and resolved
//! by one rule: the flag, else the setting's environment variable, else the configuration
//! file, else the default. Resolved at start-up, and again (for what a reload may change)
//! on SIGHUP; [`Config`] is the typed form the rest of the daemon uses.

mod args;
mod checks;
mod declare;
mod env;
mod file;
mod forms;
mod key;
mod places;
mod prices;
mod providers;
mod settings;
mod store_url;
mod windows;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::json;

pub use args::{Action, Args, CopyArgs, StoreAction};
pub use env::Env;
pub use file::FileValues;
/// Parses a configuration file's text (as `--config` would read it).
#[cfg(test)]
pub use file::parse as parse_file_text;
pub use key::read_private_file;
#[cfg(test)]
pub use settings::SettingFlags;
pub use settings::Settings;
pub use store_url::StoreUrl;

use crate::diag::{Policy, Retention};
use crate::provider::{ApiKey, ProviderConfig, Redactor, RequestOptions};
use crate::resilience::RetryPolicy;
use crate::store::StoreOptions;
use checks::{at_least_one, loopback, seconds};
use declare::DefaultInputs;
pub use forms::ModelList;
pub use prices::Prices;
pub use providers::ProviderEntry;
use providers::{default_provider, key_source};
pub use windows::{ContextSettings, Windows};

/// Everything the daemon needs to run, in typed form, with the settings it came from.
#[derive(Debug, Clone)]
pub struct Config {
    /// The configuration file that was read, if any.
    pub file: Option<PathBuf>,
    /// The settings as resolved (what `--print-config` shows).
    pub settings: Settings,
    /// The socket path.
    pub socket: PathBuf,
    /// Where the HTTP API listens.
    pub http: HttpConfig,
    /// Where the model APIs' proxy listens, if it does (loopback only).
    pub proxy_listen: Option<std::net::SocketAddr>,
    /// What the proxy does with a history the API would reject.
    pub proxy_history: HistoryPolicy,
    /// Where the web app is served, if it is (loopback only).
    pub web_listen: Option<std::net::SocketAddr>,
    /// The store's directory.
    pub data_dir: PathBuf,
    /// This omnid's name among those sharing a store (`instance_name`).
    pub instance_name: String,
    /// The diagnostic log directory.
    pub log_dir: PathBuf,
    /// The providers, the default model and the fallback chain (with the keys, read from
    /// where the settings say).
    pub provider: ProviderConfig,
    /// The file's `[providers.NAME]` tables as written (for `--print-config`).
    pub provider_entries: std::collections::BTreeMap<String, ProviderEntry>,
    /// What a million tokens of each model cost (the file's `[prices."MODEL"]`).
    pub prices: Prices,
    /// When to warn and compact, and how large a tool result travels to a model.
    pub context: ContextSettings,
    /// Input tokens per model, as the file's `[windows]` table says (it wins over what
    /// the API says and the known defaults).
    pub windows: Windows,
    /// Serve from the bundled demo model.
    pub demo: bool,
    /// Connection cap.
    pub max_connections: usize,
    /// Each TCP listener's connection cap, before it is fitted to the open-files limit.
    pub tcp_max_connections: usize,
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
    /// How long a session's actor with nothing to do stays loaded.
    pub session_idle: Duration,
    /// Request bodies held at once across every connection, in bytes.
    pub request_body_budget: u64,
    /// How long a session stays in the trash before it is purged; `None`: until purged.
    pub trash_keep: Option<Duration>,
}

/// Where the HTTP API listens, and its bearer token for TCP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// The API's Unix socket: `api.sock` beside the control socket.
    pub socket: PathBuf,
    /// A loopback TCP address to serve it on as well.
    pub listen: Option<std::net::SocketAddr>,
    /// The file holding the bearer token TCP clients must present.
    pub token_file: PathBuf,
}

impl HttpConfig {
    fn from_settings(settings: &Settings) -> anyhow::Result<Self> {
        let beside = |name: &str| settings.socket.with_file_name(name);
        Ok(Self {
            socket: beside("api.sock"),
            listen: loopback("http-listen", "the HTTP API", settings.http_listen)?,
            token_file: settings
                .http_token_file
                .clone()
                .unwrap_or_else(|| beside("api.token")),
        })
    }
}

/// What the proxy does with a history the API would reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryPolicy {
    /// Forward it unchanged (it is written down).
    Forward,
    /// Repair the known poisonings, then forward it (what changed is written down).
    Repair,
}

fn history_policy(settings: &Settings) -> anyhow::Result<HistoryPolicy> {
    match settings.proxy_history.as_str() {
        "forward" => Ok(HistoryPolicy::Forward),
        "repair" => Ok(HistoryPolicy::Repair),
        other => bail!("--proxy-history must be `forward` or `repair`, not `{other}`"),
    }
}

/// What the settings' defaults may look at.
fn inputs<'a>(args: &Args, env: &'a Env) -> DefaultInputs<'a> {
    DefaultInputs {
        env,
        demo: args.demo,
    }
}

/// The configuration file in effect (if any) and its values.
fn read_file(args: &Args, env: &Env) -> anyhow::Result<(Option<PathBuf>, FileValues)> {
    let path = file::discover(args.config.as_deref(), env);
    let values = match &path {
        Some(path) => file::read(path)?,
        None => FileValues::default(),
    };
    Ok((path, values))
}

impl Config {
    /// Reads the configuration file (if any) and resolves everything.
    pub fn load(args: &Args, env: &Env) -> anyhow::Result<Self> {
        let (path, file) = read_file(args, env)?;
        Self::resolve(args, env, path, &file)
    }

    /// Loads the configuration again for a reload: what only a restart changes stays as
    /// `running` has it, and the keys that would have changed are named.
    pub fn reload(
        args: &Args,
        env: &Env,
        running: &Config,
    ) -> anyhow::Result<(Self, Vec<&'static str>)> {
        let (path, file) = read_file(args, env)?;
        let mut settings = Settings::resolve(&args.settings, &inputs(args, env), &file)?;
        let kept = settings.keep_restart_only(&running.settings);
        Ok((
            Self::from_settings(settings, env, path, &file, args.demo)?,
            kept,
        ))
    }

    /// Resolves the settings from flags, environment and a parsed file.
    pub fn resolve(
        args: &Args,
        env: &Env,
        path: Option<PathBuf>,
        file: &FileValues,
    ) -> anyhow::Result<Self> {
        let settings = Settings::resolve(&args.settings, &inputs(args, env), file)?;
        Self::from_settings(settings, env, path, file, args.demo)
    }

    /// The typed form of resolved settings: values checked, units applied, the key read.
    fn from_settings(
        settings: Settings,
        env: &Env,
        path: Option<PathBuf>,
        file: &FileValues,
        demo: bool,
    ) -> anyhow::Result<Self> {
        let s = &settings;
        if s.retry_initial_delay_ms > s.retry_max_delay_ms {
            bail!("the retry initial delay must not exceed the maximum delay");
        }
        let default = default_provider(s, env)?;
        let provider = ProviderConfig {
            named: providers::build_all(file.providers(), env, &default.name)?,
            default,
            model: s.model.clone(),
            fallback: s.fallback.0.clone(),
            request: RequestOptions {
                include_thoughts: s.include_thoughts,
                max_tokens: at_least_one("max-tokens", s.max_tokens)?,
            },
            idle_timeout: seconds("stream-idle-timeout-secs", s.stream_idle_timeout_secs)?,
        };
        let context = ContextSettings::from_settings(s)?;
        let models = std::iter::once(&provider.model).chain(&provider.fallback);
        for reference in models.chain(&context.compact_model) {
            provider.canonical(reference)?;
        }
        Ok(Self {
            file: path,
            socket: s.socket.clone(),
            http: HttpConfig::from_settings(s)?,
            proxy_listen: loopback("proxy-listen", "the proxy", s.proxy_listen)?,
            web_listen: loopback("web-listen", "the web app", s.web_listen)?,
            proxy_history: history_policy(s)?,
            data_dir: s.data_dir.clone(),
            instance_name: s.instance_name.clone(),
            log_dir: s.log_dir.clone(),
            provider,
            provider_entries: file.providers().clone(),
            prices: file.prices().clone(),
            context,
            windows: file.windows().clone(),
            demo,
            max_connections: at_least_one("max-connections", s.max_connections)?,
            tcp_max_connections: at_least_one("tcp-max-connections", s.tcp_max_connections)?,
            retry: RetryPolicy {
                max_attempts: at_least_one("retry-max-attempts", s.retry_max_attempts)?,
                initial_delay: Duration::from_millis(s.retry_initial_delay_ms),
                max_delay: Duration::from_millis(s.retry_max_delay_ms),
                deadline: seconds("request-deadline-secs", s.request_deadline_secs)?,
                retry_stream_errors: s.retry_stream_errors,
            },
            breaker_failures: at_least_one("breaker-failures", s.breaker_failures)?,
            breaker_cooldown: Duration::from_millis(s.breaker_cooldown_ms),
            retention: Retention {
                max_archives: s.log_max_archives,
                max_age: Duration::from_secs(s.log_retention_days.saturating_mul(86_400)),
            },
            shutdown_grace: seconds("shutdown-grace-secs", s.shutdown_grace_secs)?,
            client_timeout: seconds("client-timeout-secs", s.client_timeout_secs)?,
            idle_timeout: seconds("idle-timeout-secs", s.idle_timeout_secs)?,
            session_idle: seconds("session-idle-secs", s.session_idle_secs)?,
            request_body_budget: s.request_body_budget_mb.max(1).saturating_mul(1024 * 1024),
            trash_keep: (s.trash_keep_days > 0)
                .then(|| Duration::from_secs(s.trash_keep_days.saturating_mul(86_400))),
            store: StoreOptions {
                min_free_bytes: s.min_free_space_mb.saturating_mul(1024 * 1024),
                cache_bytes: s.store_cache_mb.max(1).saturating_mul(1024 * 1024),
                shared: store_url::shared_store(s)?,
            },
            settings,
        })
    }

    /// Where the default provider's key came from, for `--print-config` and the logs.
    pub fn key_source(&self) -> String {
        let default = &self.provider.default;
        match key_source(default.kind, self.settings.api_key.as_ref()) {
            Some(source) if default.api_key.is_some() => format!("set, from {source}"),
            _ => "not set".into(),
        }
    }

    /// Every configured key's redactor.
    pub fn redactor(&self) -> Redactor {
        let keys = self
            .provider
            .all()
            .filter_map(|p| p.api_key.as_ref().map(ApiKey::expose));
        let store_password = self
            .store
            .shared
            .as_ref()
            .and_then(|s| s.password.as_deref());
        Redactor::of_all(keys.chain(store_password))
    }

    /// The configuration in effect in the file's own format (so it can be saved as one),
    /// with where the file and the key came from as comments. Never the key itself.
    pub fn print(&self) -> anyhow::Result<String> {
        let source = match &self.file {
            Some(path) => path.display().to_string(),
            None => "none".to_string(),
        };
        let mut table = self.settings.to_toml();
        if !self.provider_entries.is_empty() {
            table.insert(
                "providers".into(),
                toml::Value::try_from(&self.provider_entries)
                    .context("cannot print the providers")?,
            );
        }
        if !self.prices.is_empty() {
            table.insert(
                "prices".into(),
                toml::Value::try_from(&self.prices).context("cannot print the prices")?,
            );
        }
        if !self.windows.is_empty() {
            table.insert(
                "windows".into(),
                toml::Value::try_from(&self.windows).context("cannot print the windows")?,
            );
        }
        let demo = if self.demo {
            "# --demo: the bundled demo model answers, on 127.0.0.1 at a port chosen at start\n"
        } else {
            ""
        };
        Ok(format!(
            "# omnid configuration in effect (flags > environment > file > defaults)\n\
             # configuration file: {source}\n{demo}\
             # API key: {} (the value is never printed)\n{}",
            self.key_source(),
            toml::to_string(&table).context("cannot print the configuration")?
        ))
    }

    /// The diagnostics policy this configuration implies: redact its key, record it
    /// (redacted) with every error, keep the log directory's history as it says.
    pub fn diag_policy(&self) -> Policy {
        Policy {
            redactor: self.redactor(),
            config: self.redacted(),
            retention: self.retention.clone(),
        }
    }

    /// The configuration as diagnostics record it: every setting (none of them holds a
    /// secret), the file, whether there is a key, and never the key itself.
    pub fn redacted(&self) -> serde_json::Value {
        let mut value = self.settings.to_json();
        if let Some(object) = value.as_object_mut() {
            let api_key = if self.provider.default.api_key.is_some() {
                "set (redacted)"
            } else {
                "not set"
            };
            object.insert(
                "file".into(),
                json!(self.file.as_ref().map(|p| p.display().to_string())),
            );
            object.insert("api_key".into(), json!(api_key));
            object.insert("demo".into(), json!(self.demo));
        }
        value
    }
}

#[cfg(test)]
mod provider_tests;
#[cfg(test)]
mod tests;
