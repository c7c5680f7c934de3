//! Providers beyond the default one: the configuration file's `[providers.NAME]` tables,
//! and the fallback chain's list of model references.
//!
//! ```toml
//! [providers.local]
//! kind = "openai"            # or "gemini"
//! base_url = "http://127.0.0.1:11434/v1"
//! api_key_env = "OLLAMA_KEY" # or api_key_file; optional for local servers
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::str::FromStr;

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::env::Env;
use super::forms::SettingValue;
use super::key::read_key_file;
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

/// The names the default provider takes (after its kind): a table may not reuse them.
const RESERVED: &[&str] = &["gemini", "openai"];

/// Whether a name can be used before a `/` in a model reference.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

impl ProviderEntry {
    /// The provider this table describes, its key read from where it says.
    pub fn build(&self, name: &str, env: &Env) -> anyhow::Result<Provider> {
        if !valid_name(name) {
            bail!("[providers.{name}]: a provider's name is letters, digits, `-`, `_` and `.`");
        }
        if RESERVED.contains(&name) {
            bail!(
                "[providers.{name}]: `{name}` names the default provider (set by `provider` \
                 and `base_url`); give this one another name"
            );
        }
        let Some(kind) = Kind::parse(&self.kind) else {
            bail!(
                "[providers.{name}]: kind must be \"openai\" or \"gemini\", not \"{}\"",
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

/// Every `[providers.NAME]` table, built.
pub fn build_all(
    entries: &BTreeMap<String, ProviderEntry>,
    env: &Env,
) -> anyhow::Result<Vec<Provider>> {
    entries
        .iter()
        .map(|(name, entry)| entry.build(name, env))
        .collect()
}

/// A list of model references: `fallback = ["local/qwen2.5:7b", "gemini-2.5-flash"]` in
/// the file, `--fallback local/qwen2.5:7b,gemini-2.5-flash` as a flag.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ModelList(pub Vec<String>);

impl FromStr for ModelList {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(Self(
            text.split(',')
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .map(str::to_string)
                .collect(),
        ))
    }
}

impl SettingValue for ModelList {
    fn file_form(&self) -> Option<toml::Value> {
        toml::Value::try_from(&self.0).ok()
    }

    fn json_form(&self) -> serde_json::Value {
        serde_json::json!(self.0)
    }
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
        let provider = entry("openai").build("local", &env).unwrap();
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
            format!("{:#}", entry.build(name, &env).unwrap_err())
        };
        assert!(error(entry("anthropic"), "x").contains("kind must be"));
        assert!(error(entry("openai"), "gemini").contains("names the default provider"));
        assert!(error(entry("openai"), "a/b").contains("a provider's name"));
        let unset = Env::default();
        let message = format!("{:#}", entry("openai").build("local", &unset).unwrap_err());
        assert!(message.contains("OLLAMA_KEY is not set"), "{message}");
    }

    #[test]
    fn a_flag_lists_models_separated_by_commas() {
        let list: ModelList = "local/qwen2.5:7b, gemini-2.5-flash,".parse().unwrap();
        assert_eq!(list.0, ["local/qwen2.5:7b", "gemini-2.5-flash"]);
    }
}
