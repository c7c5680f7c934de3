//! Where the API key comes from: `--api-key-file`, else `GEMINI_API_KEY`, else the
//! configuration file's `api_key_file`, else the systemd credential `gemini_api_key`. A key
//! file that others can read is refused: a key that leaked is a key to rotate.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use super::env::Env;
use crate::provider::ApiKey;

/// The name of the systemd credential holding the key (`LoadCredential=gemini_api_key:...`).
pub const CREDENTIAL: &str = "gemini_api_key";

/// Where the key in effect came from, for `--print-config` and the logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// No key.
    None,
    /// `--api-key-file`.
    Flag(PathBuf),
    /// `GEMINI_API_KEY`.
    Env,
    /// The configuration file's `api_key_file`.
    ConfigFile(PathBuf),
    /// `$CREDENTIALS_DIRECTORY/gemini_api_key`.
    Credential(PathBuf),
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::None => write!(f, "not set"),
            KeySource::Flag(path) => write!(f, "set, from --api-key-file {}", path.display()),
            KeySource::Env => write!(f, "set, from GEMINI_API_KEY"),
            KeySource::ConfigFile(path) => write!(f, "set, from api_key_file {}", path.display()),
            KeySource::Credential(path) => {
                write!(f, "set, from the systemd credential {}", path.display())
            }
        }
    }
}

/// Reads a key file, refusing one that others may read.
pub fn read_key_file(path: &Path) -> anyhow::Result<ApiKey> {
    let metadata = std::fs::metadata(path)
        .with_context(|| format!("cannot read the API key file {}", path.display()))?;
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        bail!(
            "the API key file {} is readable by others (mode {mode:o}); make it private with \
             `chmod 600 {}`",
            path.display(),
            path.display()
        );
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the API key file {}", path.display()))?;
    ApiKey::new(&text)
        .with_context(|| format!("the API key file {} holds no usable key", path.display()))
}

/// Finds the key, in order of precedence.
pub fn resolve(
    flag: Option<&Path>,
    env: &Env,
    file: Option<&Path>,
) -> anyhow::Result<(Option<ApiKey>, KeySource)> {
    if let Some(path) = flag {
        return Ok((
            Some(read_key_file(path)?),
            KeySource::Flag(path.to_path_buf()),
        ));
    }
    if let Some(key) = env.text("GEMINI_API_KEY") {
        let key = ApiKey::new(key).context("GEMINI_API_KEY is not usable")?;
        return Ok((Some(key), KeySource::Env));
    }
    if let Some(path) = file {
        return Ok((
            Some(read_key_file(path)?),
            KeySource::ConfigFile(path.to_path_buf()),
        ));
    }
    if let Some(dir) = env.path("CREDENTIALS_DIRECTORY") {
        let path = dir.join(CREDENTIAL);
        if path.is_file() {
            // systemd makes credentials private to the service; no mode check needed.
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read the credential {}", path.display()))?;
            let key = ApiKey::new(&text).with_context(|| {
                format!("the credential {} holds no usable key", path.display())
            })?;
            return Ok((Some(key), KeySource::Credential(path)));
        }
    }
    Ok((None, KeySource::None))
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
    fn precedence_is_flag_env_file_credential() {
        let dir = tempfile::tempdir().unwrap();
        let flag = key_file(dir.path(), "flag", 0o600);
        let file = key_file(dir.path(), "file", 0o600);
        std::fs::write(dir.path().join(CREDENTIAL), "from-credential").unwrap();
        let env = Env::from_pairs([
            ("GEMINI_API_KEY", "from-env"),
            ("CREDENTIALS_DIRECTORY", dir.path().to_str().unwrap()),
        ]);
        let source = |flag: Option<&Path>, env: &Env, file: Option<&Path>| {
            resolve(flag, env, file).unwrap().1
        };
        assert_eq!(
            source(Some(&flag), &env, Some(&file)),
            KeySource::Flag(flag.clone())
        );
        assert_eq!(source(None, &env, Some(&file)), KeySource::Env);
        let no_env = Env::from_pairs([("CREDENTIALS_DIRECTORY", dir.path().to_str().unwrap())]);
        assert_eq!(
            source(None, &no_env, Some(&file)),
            KeySource::ConfigFile(file.clone())
        );
        assert!(matches!(
            source(None, &no_env, None),
            KeySource::Credential(_)
        ));
        assert_eq!(source(None, &Env::default(), None), KeySource::None);
    }
}
