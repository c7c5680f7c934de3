//! The configuration file (TOML): which one is read, and reading it. Its keys are the
//! settings' (see [`super::settings`]); an unknown key is an error that names it.

use std::path::{Path, PathBuf};

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, bail};
use serde::de::DeserializeOwned;

use super::declare::Declared;
use super::env::Env;
use super::prices::Prices;
use super::providers::ProviderEntry;
use super::settings::DECLARED;
use super::windows::Windows;

/// The configuration file's values, by dotted key, its `[providers.NAME]` tables, its
/// `[prices."MODEL"]` tables and its `[windows]` table.
#[derive(Debug, Clone, Default)]
pub struct FileValues(
    toml::Table,
    BTreeMap<String, ProviderEntry>,
    Prices,
    Windows,
);

impl FileValues {
    /// Parses a file's text, refusing a key no setting declares (so a typo never silently
    /// falls back to a default).
    pub fn parse(text: &str, declared: &[Declared]) -> anyhow::Result<Self> {
        let mut table: toml::Table = text.parse()?;
        let providers = match table.remove("providers") {
            Some(value) => value.try_into().context(
                "invalid [providers.NAME] table (keys: kind, base_url, api_key_env, api_key_file)",
            )?,
            None => BTreeMap::new(),
        };
        let prices: Prices = match table.remove("prices") {
            Some(value) => value.try_into().context(
                "invalid [prices.\"MODEL\"] table (keys: input, output, cached, thinking; \
                 numbers per million tokens)",
            )?,
            None => Prices::default(),
        };
        prices.check()?;
        let windows: Windows = match table.remove("windows") {
            Some(value) => value.try_into().context(
                "invalid [windows] table (\"MODEL\" or \"PROVIDER/MODEL\" = input tokens)",
            )?,
            None => Windows::default(),
        };
        windows.check()?;
        let keys: BTreeSet<&str> = declared.iter().map(|d| d.key).collect();
        check_keys(&table, "", &keys)?;
        Ok(Self(table, providers, prices, windows))
    }

    /// The `[windows]` table.
    pub fn windows(&self) -> &Windows {
        &self.3
    }

    /// The `[prices."MODEL"]` tables.
    pub fn prices(&self) -> &Prices {
        &self.2
    }

    /// The `[providers.NAME]` tables.
    pub fn providers(&self) -> &BTreeMap<String, ProviderEntry> {
        &self.1
    }

    /// The value of a dotted key, if the file has it.
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> anyhow::Result<Option<T>> {
        let mut table = &self.0;
        let mut parts = key.split('.').peekable();
        while let Some(part) = parts.next() {
            let Some(value) = table.get(part) else {
                return Ok(None);
            };
            if parts.peek().is_none() {
                let value = value
                    .clone()
                    .try_into()
                    .with_context(|| format!("invalid value for `{key}`"))?;
                return Ok(Some(value));
            }
            let Some(inner) = value.as_table() else {
                bail!("`{part}` must be a section ([{part}])");
            };
            table = inner;
        }
        Ok(None)
    }
}

fn check_keys(table: &toml::Table, prefix: &str, keys: &BTreeSet<&str>) -> anyhow::Result<()> {
    for (name, value) in table {
        let key = format!("{prefix}{name}");
        if keys.contains(key.as_str()) {
            continue;
        }
        let section = format!("{key}.");
        if keys.iter().any(|k| k.starts_with(&section)) {
            let Some(inner) = value.as_table() else {
                bail!("`{key}` must be a section ([{key}])");
            };
            check_keys(inner, &section, keys)?;
        } else if prefix.is_empty() {
            bail!("unknown field `{name}`");
        } else {
            bail!(
                "unknown field `{name}` in [{}]",
                prefix.trim_end_matches('.')
            );
        }
    }
    Ok(())
}

/// Which file to read: `--config` (which must exist), else the first of
/// `$XDG_CONFIG_HOME/omni/config.toml` (`~/.config` by default) and `/etc/omni/config.toml`
/// that exists, else none. The same search `omnictl` makes to find the socket.
pub fn discover(explicit: Option<&Path>, env: &Env) -> Option<PathBuf> {
    omni_proto::find_config_file(explicit, |name| env.path(name).map(Into::into))
}

/// Parses a file's text; the error names the offending key.
pub fn parse(text: &str) -> anyhow::Result<FileValues> {
    FileValues::parse(text, DECLARED)
}

/// Reads and parses a configuration file.
pub fn read(path: &Path) -> anyhow::Result<FileValues> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
    parse(&text).with_context(|| format!("invalid configuration file {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_key_is_named() {
        let err = parse("model = \"m\"\ncolour = \"blue\"\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown field `colour`"),
            "{err:#}"
        );
        let err = parse("[retry]\nmax_atempts = 3\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown field `max_atempts` in [retry]"),
            "{err:#}"
        );
        let err = parse("[colour]\nred = 1\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("unknown field `colour`"),
            "{err:#}"
        );
    }

    #[test]
    fn sections_parse() {
        let file =
            parse("model = \"m\"\n[retry]\nmax_attempts = 3\n[log]\nretention_days = 7\n").unwrap();
        assert_eq!(file.get::<String>("model").unwrap().as_deref(), Some("m"));
        assert_eq!(file.get::<u32>("retry.max_attempts").unwrap(), Some(3));
        assert_eq!(file.get::<u64>("log.retention_days").unwrap(), Some(7));
        assert_eq!(file.get::<u64>("log.max_archives").unwrap(), None);
    }

    #[test]
    fn the_windows_table_and_the_context_section_parse() {
        let file = parse(
            "[context]\nwarn_at = 70\nauto_compact = true\n\
             [windows]\n\"qwen\" = 32768\n\"local/llama\" = 131072\n",
        )
        .unwrap();
        assert_eq!(file.get::<u8>("context.warn_at").unwrap(), Some(70));
        assert_eq!(file.windows().of("local", "qwen"), Some(32768));
        assert_eq!(file.windows().of("local", "llama"), Some(131072));
        let err = parse("[windows]\n\"m\" = \"big\"\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("invalid [windows] table"),
            "{err:#}"
        );
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_key() {
        let file = parse("[retry]\nmax_attempts = \"many\"\n").unwrap();
        let err = file.get::<u32>("retry.max_attempts").unwrap_err();
        assert!(
            format!("{err:#}").contains("invalid value for `retry.max_attempts`"),
            "{err:#}"
        );
        let err = parse("retry = 3\n").unwrap_err();
        assert!(
            format!("{err:#}").contains("`retry` must be a section"),
            "{err:#}"
        );
    }
}
