//! The context settings and the window table: how many input tokens a model takes, from
//! the configuration file's `[windows]` table, for models whose window the daemon cannot
//! learn from the API or does not know (an OpenAI-compatible server's own models), or to
//! override what it would otherwise use. A window set here wins over every other source.
//!
//! ```toml
//! [windows]
//! "qwen2.5:7b" = 32768                # a bare model
//! "local/llama3.1" = 131072           # or "PROVIDER/MODEL", which wins over "MODEL"
//! ```

use std::collections::BTreeMap;

use anyhow::bail;
use serde::{Deserialize, Serialize};

use super::settings::Settings;

/// What the context settings say: when to warn, when and with what to compact, and how
/// large a tool result may travel to a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextSettings {
    /// Warn once a session's context passes this percent of its model's window (1-100).
    pub warn_at: u8,
    /// Compact before a send that would pass this percent of the window (1-100), when
    /// `auto_compact` is on.
    pub compact_at: u8,
    /// Compact by itself at `compact_at`.
    pub auto_compact: bool,
    /// The model that writes summaries; `None`: the session's own.
    pub compact_model: Option<String>,
    /// Tool results over this many bytes are cut on their way to a model; 0 never cuts.
    pub max_tool_result: usize,
}

impl ContextSettings {
    /// The context settings of resolved settings, percentages checked.
    pub fn from_settings(settings: &Settings) -> anyhow::Result<Self> {
        Ok(Self {
            warn_at: percent("context-warn-at", settings.context_warn_at)?,
            compact_at: percent("context-compact-at", settings.context_compact_at)?,
            auto_compact: settings.context_auto_compact,
            compact_model: settings.context_compact_model.clone(),
            max_tool_result: settings.context_max_tool_result,
        })
    }
}

/// A share of a window: 1 to 100.
fn percent(flag: &str, value: u8) -> anyhow::Result<u8> {
    if !(1..=100).contains(&value) {
        bail!("--{flag} is a percent of the context window, from 1 to 100, not {value}");
    }
    Ok(value)
}

/// The `[windows]` table: input tokens per model, by the name written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Windows(BTreeMap<String, u64>);

impl Windows {
    /// Refuses a window of zero tokens, naming it.
    pub fn check(&self) -> anyhow::Result<()> {
        if let Some((model, _)) = self.0.iter().find(|(_, tokens)| **tokens == 0) {
            bail!("[windows]: \"{model}\" = 0; a window is a number of input tokens above 0");
        }
        Ok(())
    }

    /// Whether the table names any model.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The window of `model` at `provider`: the `PROVIDER/MODEL` entry, else the bare
    /// model's.
    pub fn of(&self, provider: &str, model: &str) -> Option<u64> {
        self.0
            .get(&format!("{provider}/{model}"))
            .or_else(|| self.0.get(model))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Windows {
        toml::from_str(text).expect("a window table")
    }

    #[test]
    fn a_provider_s_own_entry_wins_over_the_bare_model_s() {
        let windows = table("\"m\" = 1000\n\"p/m\" = 2000\n");
        assert_eq!(windows.of("p", "m"), Some(2000));
        assert_eq!(windows.of("q", "m"), Some(1000));
        assert_eq!(windows.of("p", "other"), None);
    }

    #[test]
    fn zero_negative_and_non_numbers_are_refused() {
        let err = table("\"m\" = 0\n").check().unwrap_err();
        assert!(format!("{err}").contains("\"m\" = 0"), "{err}");
        assert!(toml::from_str::<Windows>("\"m\" = -5\n").is_err());
        assert!(toml::from_str::<Windows>("\"m\" = \"big\"\n").is_err());
    }
}
