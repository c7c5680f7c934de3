//! How a setting's value is written out: to the configuration file's format (for
//! `--print-config`) and to JSON (for the copy diagnostics keep), nested by section.

use std::path::PathBuf;

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
