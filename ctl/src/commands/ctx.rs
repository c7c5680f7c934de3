//! The connection to omnid that every command shares: where the socket is, connecting
//! (waiting while the daemon starts), and sending requests.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use omni_proto::{Call, Client, ClientError, Event};

use crate::error::{CtlError, exit};

/// What every command needs: where the daemon is, the output mode, and a connection made
/// on first use.
pub struct Ctx {
    /// The daemon's socket.
    pub socket: PathBuf,
    /// `--json` was given.
    pub json: bool,
    /// `--no-wait` was given: do not retry reaching the daemon.
    pub no_wait: bool,
    client: Option<Client>,
}

/// Waits before each new try to reach a daemon that is not up (yet): at most three retries,
/// seven seconds in all, each announced.
const CONNECT_WAITS: [Duration; 3] = [
    Duration::from_secs(1),
    Duration::from_secs(2),
    Duration::from_secs(4),
];

/// Whether a connection error means the daemon is not up (yet), which is worth waiting
/// for. Anything else (a permission problem, a protocol mismatch) will not change by
/// waiting.
fn daemon_not_up(error: &ClientError) -> bool {
    matches!(
        error,
        ClientError::Connect { source, .. }
            if matches!(source.kind(), io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused)
    )
}

/// Connects, retrying while the daemon is not up (no socket, or nobody listening on it).
/// Anything else, a permission problem included, fails at once.
async fn connect(socket: &std::path::Path, no_wait: bool) -> Result<Client, CtlError> {
    let name = concat!("omnictl ", env!("CARGO_PKG_VERSION"));
    let waits: &[Duration] = if no_wait { &[] } else { &CONNECT_WAITS };
    let mut waits = waits.iter().enumerate();
    if let Some(problem) = omni_proto::unsafe_socket_dir(socket) {
        return Err(CtlError {
            code: exit::UNREACHABLE,
            kind: None,
            message: format!("refusing to talk to omnid: {problem}"),
        });
    }
    loop {
        let error = match Client::connect(socket, name).await {
            Ok(client) => return Ok(client),
            Err(error) => error,
        };
        match waits.next() {
            Some((i, wait)) if daemon_not_up(&error) => {
                let reason = match &error {
                    ClientError::Connect { source, .. }
                        if source.kind() == io::ErrorKind::NotFound =>
                    {
                        "no socket yet"
                    }
                    _ => "connection refused",
                };
                eprintln!(
                    "omnictl: omnid is not reachable at {} ({reason}); retry {}/{} in {} s",
                    socket.display(),
                    i + 1,
                    CONNECT_WAITS.len(),
                    wait.as_secs()
                );
                tokio::time::sleep(*wait).await;
            }
            _ => return Err(error.into()),
        }
    }
}

impl Ctx {
    /// A context for the daemon at `socket`; it connects on first use.
    pub fn new(socket: PathBuf, json: bool, no_wait: bool) -> Self {
        Self {
            socket,
            json,
            no_wait,
            client: None,
        }
    }

    /// A context for the daemon the command line names: `--socket` (`flag`), else
    /// `OMNI_SOCKET`, else the configuration file's (`config`, or where omnid finds it),
    /// else the default.
    pub fn named(
        flag: Option<PathBuf>,
        config: Option<&Path>,
        json: bool,
        no_wait: bool,
    ) -> Result<Self, CtlError> {
        let socket = socket(flag, config)?;
        Ok(Self::new(socket, json, no_wait))
    }

    async fn client(&mut self) -> Result<&mut Client, CtlError> {
        if self.client.is_none() {
            self.client = Some(connect(&self.socket, self.no_wait).await?);
        }
        self.client
            .as_mut()
            .ok_or_else(|| CtlError::failure("no connection to omnid"))
    }

    /// Sends a request, handing events to `on_event`, and returns its reply.
    pub async fn call<C: Call>(
        &mut self,
        request: C,
        on_event: impl FnMut(Event),
    ) -> Result<C::Reply, CtlError> {
        Ok(self.client().await?.request(request, on_event).await?)
    }

    /// Sends a request that has no events.
    pub async fn ask<C: Call>(&mut self, request: C) -> Result<C::Reply, CtlError> {
        self.call(request, |_| {}).await
    }
}

/// The `socket` that omnid's configuration file names, if it names one: the file omnid
/// reads (see `omni_proto::find_config_file`), and only that key of it.
fn socket_from_config(explicit: Option<&std::path::Path>) -> Result<Option<PathBuf>, CtlError> {
    let Some(path) = omni_proto::find_config_file(explicit, |name| std::env::var_os(name)) else {
        return Ok(None);
    };
    let unusable = |why: String| {
        CtlError::usage(format!(
            "cannot read the socket from the configuration file {}: {why}",
            path.display()
        ))
    };
    let text = std::fs::read_to_string(&path).map_err(|e| unusable(e.to_string()))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| unusable(e.to_string()))?;
    match table.get("socket") {
        None => Ok(None),
        Some(toml::Value::String(socket)) => Ok(Some(PathBuf::from(socket))),
        Some(_) => Err(unusable("`socket` is not a string".into())),
    }
}

/// The daemon's socket: `--socket`, else `OMNI_SOCKET`, else the configuration file's
/// `socket`, else the default.
fn socket(flag: Option<PathBuf>, config: Option<&Path>) -> Result<PathBuf, CtlError> {
    let socket_env = std::env::var_os(omni_proto::SOCKET_ENV).filter(|v| !v.is_empty());
    let from_file = match (&flag, socket_env) {
        (None, None) => socket_from_config(config)?,
        _ => None,
    };
    omni_proto::resolve_socket_path(flag, from_file).map_err(|e| CtlError {
        code: exit::UNREACHABLE,
        kind: None,
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connect_error(kind: io::ErrorKind) -> ClientError {
        ClientError::Connect {
            path: PathBuf::from("/run/omni/omnid.sock"),
            source: io::Error::from(kind),
        }
    }

    #[test]
    fn only_a_daemon_that_is_not_up_is_waited_for() {
        assert!(daemon_not_up(&connect_error(io::ErrorKind::NotFound)));
        assert!(daemon_not_up(&connect_error(
            io::ErrorKind::ConnectionRefused
        )));
        assert!(!daemon_not_up(&connect_error(
            io::ErrorKind::PermissionDenied
        )));
        assert!(!daemon_not_up(&ClientError::Rejected(
            "protocol mismatch".into()
        )));
    }

    #[test]
    fn permission_denied_fails_fast_with_exit_4_and_advice() {
        let error = CtlError::from(connect_error(io::ErrorKind::PermissionDenied));
        assert_eq!(error.code, exit::UNREACHABLE);
        assert!(
            error.message.contains("belongs to another user"),
            "{}",
            error.message
        );
    }

    #[test]
    fn the_waits_are_1_2_4_seconds() {
        let secs: Vec<u64> = CONNECT_WAITS.iter().map(Duration::as_secs).collect();
        assert_eq!(secs, [1, 2, 4]);
    }
}
