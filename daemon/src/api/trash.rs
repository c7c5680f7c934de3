//! The trash's expiry: a session deleted more than `trash.keep_days` ago is purged for
//! good, at start (once the daemon serves) and then every hour, in the background.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::Daemon;
use super::handlers::purge;
use crate::model::SessionRecord;
use crate::time::now_ms;

/// How often the trash is looked at.
const SWEEP_EVERY: Duration = Duration::from_secs(3600);

/// Whether the trash keeps `record` no longer at `now_ms` (`keep`: `None` keeps it until
/// purged by hand).
pub fn expired(record: &SessionRecord, keep: Option<Duration>, now_ms: u64) -> bool {
    match (record.deleted_at_ms, keep) {
        (Some(deleted), Some(keep)) => {
            now_ms.saturating_sub(deleted) >= u64::try_from(keep.as_millis()).unwrap_or(u64::MAX)
        }
        _ => false,
    }
}

/// Sweeps the trash now and every [`SWEEP_EVERY`] until shutdown.
pub fn spawn_expiry(tracker: &TaskTracker, daemon: Arc<Daemon>, shutdown: CancellationToken) {
    tracker.spawn(async move {
        loop {
            sweep(&daemon).await;
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(SWEEP_EVERY) => {}
            }
        }
    });
}

/// Purges every session the trash keeps no longer.
async fn sweep(daemon: &Daemon) {
    let keep = daemon.services.live.get().config.trash_keep;
    if keep.is_none() {
        return;
    }
    let Ok(stored) = daemon.services.store.sessions().await else {
        return;
    };
    let now = now_ms();
    for record in stored.into_iter().filter_map(|s| s.record.ok()) {
        if !expired(&record, keep, now) {
            continue;
        }
        match purge::erase(daemon, record.id).await {
            Ok(_) => {
                tracing::info!(session = %record.id, "purged from the trash after trash.keep_days")
            }
            Err(error) => {
                tracing::warn!(session = %record.id, "the trash could not purge it: {}", error.message)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    #[test]
    fn the_trash_keeps_a_session_for_its_days_then_no_longer() {
        let day = 86_400_000;
        let mut record = SessionRecord::new(Uuid::new_v4(), 1);
        let keep = Some(Duration::from_secs(30 * 86_400));
        assert!(!expired(&record, keep, 100 * day), "not in the trash");
        record.deleted_at_ms = Some(10 * day);
        assert!(!expired(&record, keep, 39 * day));
        assert!(expired(&record, keep, 40 * day));
        assert!(
            !expired(&record, None, 400 * day),
            "0 days: kept until purged"
        );
    }
}
