//! How a setting's value is written out: to the configuration file's format (for
//! `--print-config`) and to JSON (for the copy diagnostics keep), nested by section.

use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a setting's value is written to the file and to diagnostics.
pub trait SettingValue {
    /// The value as the configuration file writes it (`None`: not written).
    fn file_form(&self) -> Option<toml::Value>;
    /// The value as diagnostics record it.
    fn json_form(&self) -> Value;
}

macro_rules! plain_setting_values {
    ($($ty:ty),*) => {$(
        impl SettingValue for $ty {
            fn file_form(&self) -> Option<toml::Value> {
                toml::Value::try_from(self).ok()
            }
            fn json_form(&self) -> Value {
                serde_json::to_value(self).unwrap_or_default()
            }
        }
    )*};
}

plain_setting_values!(
    String,
    PathBuf,
    bool,
    u8,
    u32,
    u64,
    usize,
    f64,
    std::net::SocketAddr
);

/// Puts `value` at a dotted key of a TOML table, making sections as needed.
pub fn put_toml(table: &mut toml::Table, key: &str, value: toml::Value) {
    match key.split_once('.') {
        Some((section, rest)) => {
            let inner = table
                .entry(section)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if let Some(inner) = inner.as_table_mut() {
                put_toml(inner, rest, value);
            }
        }
        None => {
            table.insert(key.to_string(), value);
        }
    }
}

/// Puts `value` at a dotted key of a JSON object, making objects as needed.
pub fn put_json(object: &mut serde_json::Map<String, Value>, key: &str, value: Value) {
    match key.split_once('.') {
        Some((section, rest)) => {
            let inner = object
                .entry(section)
                .or_insert_with(|| Value::Object(serde_json::Map::new()));
            if let Some(inner) = inner.as_object_mut() {
                put_json(inner, rest, value);
            }
        }
        None => {
            object.insert(key.to_string(), value);
        }
    }
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

/// The base URL's default depends on the provider's kind: chosen when the settings are
/// typed (see `Config`).
pub fn kind_default(_: &super::declare::DefaultInputs<'_>) -> anyhow::Result<Option<String>> {
    Ok(None)
}

/// No models: the default of a list of them.
pub fn no_models(_: &super::declare::DefaultInputs<'_>) -> anyhow::Result<ModelList> {
    Ok(ModelList::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_lists_models_separated_by_commas() {
        let list: ModelList = "local/qwen2.5:7b, gemini-2.5-flash,".parse().unwrap();
        assert_eq!(list.0, ["local/qwen2.5:7b", "gemini-2.5-flash"]);
    }
}
