//! The configuration file (TOML). Every key is optional; an unknown key is an error that
//! names it, so a typo never silently falls back to a default.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::env::Env;

/// `[retry]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetrySection {
    /// Attempts per send.
    pub max_attempts: Option<u32>,
    /// First backoff step, ms.
    pub initial_delay_ms: Option<u64>,
    /// Longest wait, ms.
    pub max_delay_ms: Option<u64>,
    /// All attempts of a send, s.
    pub request_deadline_secs: Option<f64>,
    /// Retry broken streams.
    pub retry_stream_errors: Option<bool>,
}

/// `[breaker]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakerSection {
    /// Failed attempts in a row that open it.
    pub failures: Option<u32>,
    /// How long it stays open, ms.
    pub cooldown_ms: Option<u64>,
}

/// `[log]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSection {
    /// Rotated logs kept.
    pub max_archives: Option<usize>,
    /// Days records are kept.
    pub retention_days: Option<u64>,
}

/// The whole file. Field names are the flags' names without `--`, grouped as above.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// `--socket`.
    pub socket: Option<PathBuf>,
    /// `--data-dir`.
    pub data_dir: Option<PathBuf>,
    /// `--log-dir`.
    pub log_dir: Option<PathBuf>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--api-key-file`.
    pub api_key_file: Option<PathBuf>,
    /// `--include-thoughts`.
    pub include_thoughts: Option<bool>,
    /// `--stream-idle-timeout-secs`.
    pub stream_idle_timeout_secs: Option<f64>,
    /// `--max-connections`.
    pub max_connections: Option<usize>,
    /// `--shutdown-grace-secs`.
    pub shutdown_grace_secs: Option<f64>,
    /// `--min-free-space-mb`.
    pub min_free_space_mb: Option<u64>,
    /// `--client-timeout-secs`.
    pub client_timeout_secs: Option<f64>,
    /// `--idle-timeout-secs`.
    pub idle_timeout_secs: Option<f64>,
    /// Retry policy.
    pub retry: Option<RetrySection>,
    /// Circuit breaker.
    pub breaker: Option<BreakerSection>,
    /// Diagnostic logs.
    pub log: Option<LogSection>,
}

impl FileConfig {
    /// Parses a file's text; the error names the offending key and line.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        Ok(toml::from_str(text)?)
    }
}

/// Which file to read: `--config` (which must exist), else the first of
/// `$XDG_CONFIG_HOME/omni/config.toml` (`~/.config` by default) and `/etc/omni/config.toml`
/// that exists, else none. The same search `omnictl` makes to find the socket.
pub fn discover(explicit: Option<&Path>, env: &Env) -> Option<PathBuf> {
    omni_proto::find_config_file(explicit, |name| env.path(name).map(Into::into))
}

/// Reads and parses a configuration file.
pub fn read(path: &Path) -> anyhow::Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
    FileConfig::parse(&text)
        .with_context(|| format!("invalid configuration file {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_key_is_named() {
        let err = FileConfig::parse("model = \"m\"\ncolour = \"blue\"\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown field `colour`"),
            "{err:#}"
        );
        let err = FileConfig::parse("[retry]\nmax_atempts = 3\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown field `max_atempts`"),
            "{err:#}"
        );
    }

    #[test]
    fn sections_parse() {
        let file = FileConfig::parse(
            "model = \"m\"\n[retry]\nmax_attempts = 3\n[log]\nretention_days = 7\n",
        )
        .unwrap();
        assert_eq!(file.model.as_deref(), Some("m"));
        assert_eq!(file.retry.unwrap().max_attempts, Some(3));
        assert_eq!(file.log.unwrap().retention_days, Some(7));
    }
}
