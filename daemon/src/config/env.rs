//! The environment, read once: what `omnid` consults when a flag is absent. A snapshot (not
//! `std::env` lookups scattered around) so that precedence is tested without touching the
//! process's environment.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;

/// A snapshot of the environment variables omnid reads.
#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: HashMap<String, OsString>,
}

impl Env {
    /// The process's environment (a provider's `api_key_env` may name any variable).
    pub fn from_process() -> Self {
        Self {
            vars: std::env::vars_os()
                .filter_map(|(name, value)| Some((name.into_string().ok()?, value)))
                .filter(|(_, value)| !value.is_empty())
                .collect(),
        }
    }

    /// An environment made of these variables only.
    pub fn from_pairs<V: Into<OsString>>(
        pairs: impl IntoIterator<Item = (&'static str, V)>,
    ) -> Self {
        Self {
            vars: pairs
                .into_iter()
                .map(|(name, value)| (name.to_string(), value.into()))
                .filter(|(_, value)| !value.is_empty())
                .collect(),
        }
    }

    /// A variable as a path. systemd may give several colon-separated directories; the
    /// first is ours.
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        let value = self.vars.get(name)?.to_str().map_or_else(
            || PathBuf::from(self.vars[name].clone()),
            |text| PathBuf::from(text.split(':').next().unwrap_or(text)),
        );
        Some(value)
    }

    /// A variable as text (`None` if unset, empty, or not UTF-8).
    pub fn text(&self, name: &str) -> Option<&str> {
        self.vars.get(name)?.to_str()
    }
}
