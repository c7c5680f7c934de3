//! Talking to systemd (`Type=notify`): `READY=1` once the store is open and the socket
//! accepts, `STATUS=` lines as things change, `WATCHDOG=1` from the async runtime itself (so
//! a wedged runtime stops the pings and systemd restarts us), and `STOPPING=1`. Outside
//! systemd (`NOTIFY_SOCKET` unset) every call is a silent no-op.

use futures_util::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;

use sd_notify::NotifyState;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

fn send(states: &[NotifyState]) {
    if let Err(error) = sd_notify::notify(states) {
        tracing::warn!(%error, "could not notify systemd");
    }
}

/// The daemon is serving.
pub fn ready(status: &str) {
    send(&[NotifyState::Ready, NotifyState::Status(status)]);
}

/// The daemon is shutting down.
pub fn stopping() {
    send(&[NotifyState::Stopping, NotifyState::Status("shutting down")]);
}

/// Pings the watchdog at half its interval, if systemd asked for one, until `shutdown`.
pub fn spawn_watchdog(tracker: &TaskTracker, shutdown: CancellationToken) {
    let Some(interval) = sd_notify::watchdog_enabled() else {
        return;
    };
    let every = interval / 2;
    tracing::info!(?interval, "systemd watchdog enabled");
    tracker.spawn(async move {
        let mut tick = tokio::time::interval(every.max(Duration::from_millis(10)));
        loop {
            tokio::select! {
                _ = tick.tick() => send(&[NotifyState::Watchdog]),
                _ = shutdown.cancelled() => break,
            }
        }
    });
}

/// What the daemon is doing, in one line (it reads the store).
pub type Describe = Arc<dyn Fn() -> BoxFuture<'static, String> + Send + Sync>;

/// Sends a `STATUS=` line whenever `describe()` changes (checked every second) from
/// `told`, the status systemd has (sent with `READY=1`): a change made before the first
/// check is still told.
pub fn spawn_status(
    tracker: &TaskTracker,
    shutdown: CancellationToken,
    describe: Describe,
    told: String,
) {
    if std::env::var_os("NOTIFY_SOCKET").is_none() {
        return;
    }
    tracker.spawn(async move {
        let mut last = told;
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tokio::select! {
                _ = tick.tick() => {
                    let now = describe().await;
                    if now != last {
                        send(&[NotifyState::Status(&now)]);
                        last = now;
                    }
                }
                _ = shutdown.cancelled() => break,
            }
        }
    });
}
