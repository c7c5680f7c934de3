//! `store_url`: where a shared PostgreSQL store is (`postgres://USER@HOST:PORT/DB`). A
//! password in it is kept, but never written out: `--print-config`, diagnostics and
//! messages show the URL with the password replaced.

use std::str::FromStr;

use serde::Deserialize;

use super::Settings;
use super::checks::seconds;
use super::forms::SettingValue;
use crate::store::SharedStore;

/// A PostgreSQL URL as given (its password, if any, included).
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct StoreUrl(String);

impl StoreUrl {
    /// The URL as given, password included: only for connecting.
    pub fn secret_text(&self) -> &str {
        &self.0
    }

    /// The URL with its password (if any) replaced by `***`.
    pub fn shown(&self) -> String {
        let Some((scheme, rest)) = self.0.split_once("://") else {
            return self.0.clone();
        };
        let (authority, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        match authority.rsplit_once('@') {
            Some((user, host)) if user.contains(':') => {
                let name = user.split(':').next().unwrap_or_default();
                format!("{scheme}://{name}:***@{host}{tail}")
            }
            _ => self.0.clone(),
        }
    }
}

impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

impl FromStr for StoreUrl {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let url = StoreUrl(text.trim().to_string());
        if url.0.starts_with("postgres://") || url.0.starts_with("postgresql://") {
            Ok(url)
        } else {
            Err(format!(
                "store_url {} is not a PostgreSQL URL: write postgres://USER@HOST:PORT/DATABASE",
                url.shown()
            ))
        }
    }
}

impl TryFrom<String> for StoreUrl {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl SettingValue for StoreUrl {
    fn file_form(&self) -> Option<toml::Value> {
        Some(toml::Value::String(self.shown()))
    }

    fn json_form(&self) -> serde_json::Value {
        serde_json::Value::String(self.shown())
    }
}

/// The shared store the settings name, if any: its URL, the password from its file
/// (refused unless only its owner may read it), this instance's name and the leases'
/// length.
pub fn shared_store(settings: &Settings) -> anyhow::Result<Option<SharedStore>> {
    let password_file = settings.store_password_file.as_deref();
    let Some(url) = &settings.store_url else {
        if let Some(file) = password_file {
            anyhow::bail!(
                "store_password_file {} is set but store_url is not: set both, or neither",
                file.display()
            );
        }
        return Ok(None);
    };
    let password = match password_file {
        Some(file) => Some(super::key::read_private_file(
            file,
            "the store's password file",
        )?),
        None => None,
    };
    let lease = seconds("store-lease-secs", settings.store_lease_secs)?;
    if lease < std::time::Duration::from_millis(300) {
        anyhow::bail!("store_lease_secs must be at least 0.3 (it is renewed every third of it)");
    }
    Ok(Some(SharedStore {
        url: url.secret_text().to_string(),
        password,
        shown: url.shown(),
        instance: settings.instance_name.clone(),
        lease,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_the_url_is_never_shown() {
        let url: StoreUrl = "postgres://omni:s3cret@db.lan:5432/omni".parse().unwrap();
        assert_eq!(url.shown(), "postgres://omni:***@db.lan:5432/omni");
        assert_eq!(format!("{url:?}"), "postgres://omni:***@db.lan:5432/omni");
        assert!(!url.json_form().to_string().contains("s3cret"));
        let plain: StoreUrl = "postgres://omni@db.lan/omni".parse().unwrap();
        assert_eq!(plain.shown(), "postgres://omni@db.lan/omni");
        let refused = "mysql://root:pw@db/x".parse::<StoreUrl>().unwrap_err();
        assert!(
            refused.contains("not a PostgreSQL URL") && !refused.contains("pw"),
            "{refused}"
        );
    }
}
