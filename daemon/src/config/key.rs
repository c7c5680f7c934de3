//! Where the API key comes from, by the rule every setting follows: `--api-key-file`, else
//! `GEMINI_API_KEY`, else the configuration file's `api_key_file`, else the systemd
//! credential `gemini_api_key`. A key file that others can read is refused: a key that
//! leaked is a key to rotate.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use serde::{Deserialize, Deserializer};

use super::declare::DefaultInputs;
use super::env::Env;
use super::forms::SettingValue;
use crate::provider::ApiKey;

/// The name of the systemd credential holding the key (`LoadCredential=gemini_api_key:...`).
pub const CREDENTIAL: &str = "gemini_api_key";

/// Where the API key is: the `api_key` setting's value. It never holds the key itself,
/// so settings can be printed and logged; [`read`] fetches the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiKeyFrom {
    /// `--api-key-file`.
    Flag(PathBuf),
    /// `GEMINI_API_KEY`.
    Env,
    /// The configuration file's `api_key_file`.
    ConfigFile(PathBuf),
    /// `$CREDENTIALS_DIRECTORY/gemini_api_key`.
    Credential(PathBuf),
}

impl ApiKeyFrom {
    /// `--api-key-file FILE`.
    pub fn flag(path: &str) -> Result<Self, std::convert::Infallible> {
        Ok(Self::Flag(PathBuf::from(path)))
    }

    /// `GEMINI_API_KEY` is set (its value is read by [`read`], and never kept here).
    pub fn env(_key: &str) -> anyhow::Result<Self> {
        Ok(Self::Env)
    }

    /// The systemd credential, if the service was given one.
    pub fn credential(inputs: &DefaultInputs<'_>) -> anyhow::Result<Option<Self>> {
        let path = inputs
            .env
            .path("CREDENTIALS_DIRECTORY")
            .map(|dir| dir.join(CREDENTIAL));
        Ok(path.filter(|path| path.is_file()).map(Self::Credential))
    }
}

impl<'de> Deserialize<'de> for ApiKeyFrom {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        PathBuf::deserialize(deserializer).map(Self::ConfigFile)
    }
}

impl SettingValue for ApiKeyFrom {
    fn file_form(&self) -> Option<toml::Value> {
        match self {
            Self::Flag(path) | Self::ConfigFile(path) => path.file_form(),
            Self::Env | Self::Credential(_) => None,
        }
    }

    fn json_form(&self) -> serde_json::Value {
        self.to_string().into()
    }
}

impl std::fmt::Display for ApiKeyFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Flag(path) => write!(f, "--api-key-file {}", path.display()),
            Self::Env => write!(f, "GEMINI_API_KEY"),
            Self::ConfigFile(path) => write!(f, "api_key_file {}", path.display()),
            Self::Credential(path) => write!(f, "the systemd credential {}", path.display()),
        }
    }
}

/// Reads a key file, refusing one that others may read.
pub fn read_key_file(path: &Path) -> anyhow::Result<ApiKey> {
    let text = read_private_file(path, "the API key file")?;
    ApiKey::new(&text)
        .with_context(|| format!("the API key file {} holds no usable key", path.display()))
}

/// Reads a file that holds a secret (`what` names it), trimmed, refusing one that others
/// may read.
pub fn read_private_file(path: &Path, what: &str) -> anyhow::Result<String> {
    let metadata = std::fs::metadata(path)
        .with_context(|| format!("cannot read {what} {}", path.display()))?;
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        bail!(
            "{what} {} is readable by others (mode {mode:o}); make it private with \
             `chmod 600 {}`",
            path.display(),
            path.display()
        );
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {what} {}", path.display()))?;
    Ok(text.trim().to_string())
}

/// Reads the key from where the settings say it is.
pub fn read(from: &ApiKeyFrom, env: &Env) -> anyhow::Result<ApiKey> {
    match from {
        ApiKeyFrom::Flag(path) | ApiKeyFrom::ConfigFile(path) => read_key_file(path),
        ApiKeyFrom::Env => {
            let key = env.text("GEMINI_API_KEY").unwrap_or_default();
            ApiKey::new(key).context("GEMINI_API_KEY is not usable")
        }
        ApiKeyFrom::Credential(path) => {
            // systemd makes credentials private to the service; no mode check needed.
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the credential {}", path.display()))?;
            ApiKey::new(&text)
                .with_context(|| format!("the credential {} holds no usable key", path.display()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_file(dir: &Path, name: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "AIza-from-file\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[test]
    fn a_key_file_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let open = key_file(dir.path(), "open", 0o644);
        let err = read_key_file(&open).unwrap_err().to_string();
        assert!(
            err.contains("readable by others (mode 644)") && err.contains("chmod 600"),
            "{err}"
        );
        let private = key_file(dir.path(), "private", 0o600);
        assert_eq!(read_key_file(&private).unwrap().expose(), "AIza-from-file");
    }

    #[test]
    fn each_source_is_read_and_a_bad_key_is_named_without_its_value() {
        let dir = tempfile::tempdir().unwrap();
        let file = key_file(dir.path(), "file", 0o600);
        std::fs::write(dir.path().join(CREDENTIAL), "from-credential\n").unwrap();
        let env = Env::from_pairs([("GEMINI_API_KEY", "from-env")]);
        let key = |from: &ApiKeyFrom, env: &Env| read(from, env).unwrap().expose().to_string();
        assert_eq!(key(&ApiKeyFrom::Flag(file.clone()), &env), "AIza-from-file");
        assert_eq!(key(&ApiKeyFrom::ConfigFile(file), &env), "AIza-from-file");
        assert_eq!(key(&ApiKeyFrom::Env, &env), "from-env");
        let credential = ApiKeyFrom::Credential(dir.path().join(CREDENTIAL));
        assert_eq!(key(&credential, &env), "from-credential");
        let bad = Env::from_pairs([("GEMINI_API_KEY", "abc\ndef")]);
        let err = format!("{:#}", read(&ApiKeyFrom::Env, &bad).unwrap_err());
        assert!(
            err.contains("GEMINI_API_KEY is not usable") && !err.contains("abc"),
            "{err}"
        );
    }
}
