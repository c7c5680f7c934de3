//! The socket server: accept connections (up to a cap), one task per connection.

mod connection;
pub mod frames;
pub mod listener;

use std::sync::Arc;
use std::time::Duration;

/// Memory all connections together may hold in partly received frames: four frames of
/// the largest size.
const FRAME_BUDGET: usize = 4 * omni_proto::MAX_FRAME_LEN;

use interprocess::local_socket::tokio::Listener;
use interprocess::local_socket::traits::tokio::Listener as _;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::api::Daemon;
use frames::Budget;

/// Accepts connections until `shutdown` is cancelled, then drops the listener (which
/// removes the socket file) and returns. Connection tasks are spawned on `tracker`.
pub async fn serve(
    listener: Listener,
    daemon: Arc<Daemon>,
    shutdown: CancellationToken,
    tracker: TaskTracker,
) {
    let budget = Budget::new(FRAME_BUDGET);
    let max_connections = daemon.services.live.get().config.max_connections;
    let permits = Arc::new(Semaphore::new(max_connections));
    let mut accept_backoff = Duration::from_millis(10);
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok(stream) => {
                accept_backoff = Duration::from_millis(10);
                match permits.clone().try_acquire_owned() {
                    Ok(permit) => {
                        let (daemon, shutdown) = (daemon.clone(), shutdown.clone());
                        let budget = budget.clone();
                        tracker.spawn(async move {
                            connection::serve(stream, daemon, budget, shutdown).await;
                            drop(permit);
                            crate::memory::freed();
                        });
                    }
                    Err(_) => {
                        let budget = budget.clone();
                        tracker.spawn(connection::refuse(stream, max_connections, budget));
                    }
                }
            }
            Err(error) => {
                // Usually out of file descriptors: wait a little rather than spin.
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(accept_backoff).await;
                accept_backoff = (accept_backoff * 2).min(Duration::from_secs(1));
            }
        }
    }
    drop(listener);
}
