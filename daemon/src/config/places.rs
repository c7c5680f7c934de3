//! Where omnid's files go when no setting names a place: systemd's directories first, then
//! the XDG base directories, then the home directory (the defaults of `settings.rs`).

use std::path::PathBuf;

use anyhow::Context;

use super::declare::DefaultInputs;

/// The control socket: systemd's runtime directory, else `$XDG_RUNTIME_DIR/omni`.
pub(super) fn default_socket(inputs: &DefaultInputs<'_>) -> anyhow::Result<PathBuf> {
    let env = inputs.env;
    env.path("RUNTIME_DIRECTORY")
        .map(|dir| dir.join("omnid.sock"))
        .or_else(|| {
            env.path("XDG_RUNTIME_DIR")
                .map(|dir| dir.join("omni").join("omnid.sock"))
        })
        .context(omni_proto::SocketPathError)
}

/// The store: systemd's state directory, else the XDG data directory (`demo/` within it
/// for `--demo`).
pub(super) fn default_data_dir(inputs: &DefaultInputs<'_>) -> anyhow::Result<PathBuf> {
    if let Some(dir) = inputs.env.path("STATE_DIRECTORY") {
        return Ok(dir);
    }
    let dir = xdg_dir(inputs, "XDG_DATA_HOME", &[".local", "share"]).context("pass --data-dir")?;
    Ok(if inputs.demo { dir.join("demo") } else { dir })
}

/// This omnid's name among those sharing a store: the host name.
pub(super) fn default_instance_name(_: &DefaultInputs<'_>) -> anyhow::Result<String> {
    let name = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    Ok(if name.is_empty() {
        "omnid".into()
    } else {
        name
    })
}

/// Diagnostic logs: systemd's logs directory, else the XDG state directory.
pub(super) fn default_log_dir(inputs: &DefaultInputs<'_>) -> anyhow::Result<PathBuf> {
    match inputs.env.path("LOGS_DIRECTORY") {
        Some(dir) => Ok(dir),
        None => xdg_dir(inputs, "XDG_STATE_HOME", &[".local", "state"]).context("pass --log-dir"),
    }
}

/// `$XDG_*/omni`, else `~/<fallback>/omni`.
fn xdg_dir(
    inputs: &DefaultInputs<'_>,
    xdg_var: &str,
    fallback: &[&str],
) -> anyhow::Result<PathBuf> {
    if let Some(dir) = inputs.env.path(xdg_var) {
        return Ok(dir.join("omni"));
    }
    let mut dir = inputs
        .env
        .path("HOME")
        .with_context(|| format!("neither {xdg_var} nor HOME is set"))?;
    dir.extend(fallback);
    Ok(dir.join("omni"))
}
