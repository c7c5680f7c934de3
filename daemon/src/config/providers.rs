//! The providers: the default one (from the flags and the file's top-level keys, with the
//! one rule for where its key is) and the configuration file's `[providers.NAME]` tables.
//!
//! ```toml
//! [providers.local]
//! kind = "openai"            # or "gemini", "anthropic"
//! base_url = "http://127.0.0.1:11434/v1"
//! api_key_env = "OLLAMA_KEY" # or api_key_file; optional for local servers
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::env::Env;
use super::key::{self, ApiKeyFrom, read_key_file};
use super::settings::Settings;
use crate::provider::{ApiKey, Kind, Provider};

/// One `[providers.NAME]` table, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderEntry {
    /// `openai` or `gemini`.
    pub kind: String,
    /// Where its API is (for OpenAI-compatible servers, up to and including `/v1`).
    pub base_url: String,
    /// The environment variable holding its key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// A file (readable by its owner only) holding its key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key_file: Option<PathBuf>,
}

/// Whether a name can be used before a `/` in a model reference.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

impl ProviderEntry {
    /// The provider this table describes, its key read from where it says. `default` is
    /// the default provider's name (its kind's), which no table may take; another kind's
    /// name may be taken (`[providers.anthropic]` beside a Gemini default).
    pub fn build(&self, name: &str, env: &Env, default: &str) -> anyhow::Result<Provider> {
        if !valid_name(name) {
            bail!("[providers.{name}]: a provider's name is letters, digits, `-`, `_` and `.`");
        }
        if name == default {
            bail!(
                "[providers.{name}]: `{name}` names the default provider (set by `provider` \
                 and `base_url`); give this one another name"
            );
        }
        let Some(kind) = Kind::parse(&self.kind) else {
            bail!(
                "[providers.{name}]: kind must be {}, not \"{}\"",
                Kind::choices(),
                self.kind
            );
        };
        let api_key = match (&self.api_key_env, &self.api_key_file) {
            (Some(_), Some(_)) => {
                bail!("[providers.{name}]: give api_key_env or api_key_file, not both")
            }
            (Some(var), None) => {
                let text = env.text(var).with_context(|| {
                    format!("[providers.{name}]: the environment variable {var} is not set")
                })?;
                Some(ApiKey::new(text).with_context(|| format!("{var} is not usable"))?)
            }
            (None, Some(path)) => {
                Some(read_key_file(path).with_context(|| format!("[providers.{name}]"))?)
            }
            (None, None) => None,
        };
        Ok(Provider {
            name: name.to_string(),
            kind,
            base_url: self.base_url.clone(),
            api_key,
        })
    }
}

/// Every `[providers.NAME]` table, built, beside the default provider named `default`.
pub fn build_all(
    entries: &BTreeMap<String, ProviderEntry>,
    env: &Env,
    default: &str,
) -> anyhow::Result<Vec<Provider>> {
    entries
        .iter()
        .map(|(name, entry)| entry.build(name, env, default))
        .collect()
}

/// Where the default provider's key comes from.
pub(super) enum KeySource<'a> {
    /// Where the key settings say.
    Setting(&'a ApiKeyFrom),
    /// The family's own environment variable (`OPENAI_API_KEY`).
    Env(&'static str),
}

impl std::fmt::Display for KeySource<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Setting(from) => from.fmt(f),
            KeySource::Env(var) => f.write_str(var),
        }
    }
}

/// The one rule for the default provider's key: where the key settings say, unless its
/// family has a variable of its own (OpenAI's `OPENAI_API_KEY`): then a key file (flag or
/// file) if one is named, else that variable (`GEMINI_API_KEY` and the Gemini credential
/// are Gemini's own).
pub(super) fn key_source(kind: Kind, setting: Option<&ApiKeyFrom>) -> Option<KeySource<'_>> {
    match (kind.family().key_env(), setting) {
        (None, setting) => setting.map(KeySource::Setting),
        (Some(_), Some(from @ (ApiKeyFrom::Flag(_) | ApiKeyFrom::ConfigFile(_)))) => {
            Some(KeySource::Setting(from))
        }
        (Some(var), _) => Some(KeySource::Env(var)),
    }
}

/// The provider the flags (or the file's top-level keys) describe, named after its kind.
pub(super) fn default_provider(s: &Settings, env: &Env) -> anyhow::Result<Provider> {
    let Some(kind) = Kind::parse(&s.provider) else {
        bail!(
            "--provider must be {}, not `{}`",
            Kind::choices(),
            s.provider
        );
    };
    let base_url = s
        .base_url
        .clone()
        .unwrap_or_else(|| kind.family().default_base_url().to_string());
    let api_key = match key_source(kind, s.api_key.as_ref()) {
        Some(KeySource::Setting(from)) => Some(key::read(from, env)?),
        Some(KeySource::Env(var)) => env
            .text(var)
            .map(|text| ApiKey::new(text).with_context(|| format!("{var} is not usable")))
            .transpose()?,
        None => None,
    };
    Ok(Provider {
        name: kind.as_str().to_string(),
        kind,
        base_url,
        api_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: &str) -> ProviderEntry {
        ProviderEntry {
            kind: kind.into(),
            base_url: "http://127.0.0.1:11434/v1".into(),
            api_key_env: Some("OLLAMA_KEY".into()),
            api_key_file: None,
        }
    }

    #[test]
    fn a_table_builds_a_provider_with_its_key_from_the_environment() {
        let env = Env::from_pairs([("OLLAMA_KEY", "sk-local")]);
        let provider = entry("openai").build("local", &env, "gemini").unwrap();
        assert_eq!(
            (provider.kind, provider.name.as_str()),
            (Kind::OpenAi, "local")
        );
        assert_eq!(provider.api_key.unwrap().expose(), "sk-local");
    }

    #[test]
    fn mistakes_are_named() {
        let env = Env::from_pairs([("OLLAMA_KEY", "sk-local")]);
        let error = |entry: ProviderEntry, name: &str| {
            format!("{:#}", entry.build(name, &env, "gemini").unwrap_err())
        };
        assert!(error(entry("no-such-kind"), "x").contains("kind must be"));
        assert!(error(entry("openai"), "gemini").contains("names the default provider"));
        let beside = entry("anthropic")
            .build("anthropic", &env, "gemini")
            .unwrap();
        assert_eq!(
            (beside.kind, beside.name.as_str()),
            (Kind::Anthropic, "anthropic"),
            "another kind's name is free beside a Gemini default"
        );
        assert!(error(entry("openai"), "a/b").contains("a provider's name"));
        let unset = Env::default();
        let message = format!(
            "{:#}",
            entry("openai")
                .build("local", &unset, "gemini")
                .unwrap_err()
        );
        assert!(message.contains("OLLAMA_KEY is not set"), "{message}");
    }
}
