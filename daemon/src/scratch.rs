//! `--demo-scratch-dir DIR`: a throwaway directory that holds everything a demo daemon
//! writes (its socket, store and logs, as `omnictl demo` lays them out), removed when the
//! daemon exits, so a demo left running leaves nothing behind once it is stopped.
//!
//! omnid removes only a directory it was started with, that belongs to its user, that no
//! one else can write to, and that holds its socket, data and log directories.

use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, bail};

use crate::config::Config;

/// A scratch directory claimed at start, removed by [`Scratch::remove`] at exit.
#[derive(Debug)]
pub struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    /// Checks that `dir` may be removed at exit: an absolute, plain path to a directory
    /// (not a symbolic link) owned by omnid's user and writable by no one else, holding the
    /// socket, the data directory and the log directory of `config`.
    pub fn claim(dir: &Path, config: &Config) -> anyhow::Result<Self> {
        let plain = dir.is_absolute()
            && dir
                .components()
                .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        if !plain {
            bail!(
                "--demo-scratch-dir {} must be an absolute path without `.` or `..`",
                dir.display()
            );
        }
        let metadata = std::fs::symlink_metadata(dir)
            .with_context(|| format!("--demo-scratch-dir {}", dir.display()))?;
        if !metadata.is_dir() {
            bail!("--demo-scratch-dir {} is not a directory", dir.display());
        }
        if metadata.uid() != rustix::process::geteuid().as_raw() || metadata.mode() & 0o022 != 0 {
            bail!(
                "--demo-scratch-dir {} must belong to omnid's user and be writable by no one \
                 else (a directory `omnictl demo` makes with mode 0700)",
                dir.display()
            );
        }
        for (what, path) in [
            ("socket", &config.socket),
            ("data directory", &config.data_dir),
            ("log directory", &config.log_dir),
        ] {
            if !path.starts_with(dir) || path == dir {
                bail!(
                    "--demo-scratch-dir {} must hold the {what} ({}): omnid removes only a \
                     directory of its own",
                    dir.display(),
                    path.display()
                );
            }
        }
        Ok(Self {
            dir: dir.to_path_buf(),
        })
    }

    /// Removes the directory and everything in it (the daemon has stopped using them).
    pub fn remove(self) {
        match std::fs::remove_dir_all(&self.dir) {
            Ok(()) => tracing::info!(dir = %self.dir.display(), "removed the demo's directory"),
            Err(error) => {
                tracing::warn!(%error, dir = %self.dir.display(), "cannot remove the demo's directory");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_in(dir: &Path) -> Config {
        let settings = crate::config::SettingFlags {
            socket: Some(dir.join("omnid.sock")),
            data_dir: Some(dir.join("data")),
            log_dir: Some(dir.join("logs")),
            ..Default::default()
        };
        let args = crate::config::Args {
            settings,
            demo: true,
            ..Default::default()
        };
        let env = crate::config::Env::default();
        Config::resolve(&args, &env, None, &Default::default()).unwrap()
    }

    #[test]
    fn a_private_directory_holding_everything_is_claimed() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Scratch::claim(dir.path(), &config_in(dir.path())).is_ok());
    }

    #[test]
    fn a_directory_not_holding_the_store_or_not_private_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let mut config = config_in(dir.path());
        config.data_dir = elsewhere.path().join("data");
        let refused = Scratch::claim(dir.path(), &config).unwrap_err();
        assert!(refused.to_string().contains("data directory"), "{refused}");
        let relative = Scratch::claim(Path::new("tmp/x"), &config_in(dir.path()));
        assert!(relative.is_err());
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        let open = Scratch::claim(dir.path(), &config_in(dir.path())).unwrap_err();
        assert!(
            open.to_string().contains("writable by no one else"),
            "{open}"
        );
    }
}
