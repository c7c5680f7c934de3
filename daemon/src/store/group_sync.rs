//! Group commit: many writers wait for one sync.
//!
//! A writer first applies its change, then calls [`GroupSync::sync`]. A single task runs
//! the sync function; each run takes every request that arrived before it started, so all
//! their changes are covered by it, and writers that come in while it runs share the next
//! one. N concurrent commits therefore cost about two syncs, not N.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{mpsc, oneshot};

type SyncResult = Result<(), Arc<io::Error>>;
type SyncFn = dyn Fn() -> io::Result<()> + Send + Sync;

/// A handle to the task that performs syncs on behalf of many writers.
#[derive(Clone)]
pub struct GroupSync {
    requests: mpsc::UnboundedSender<oneshot::Sender<SyncResult>>,
    runs: Arc<AtomicU64>,
}

impl GroupSync {
    /// Starts the sync task on the current tokio runtime. `sync_fn` makes everything written
    /// so far durable; it runs on the blocking pool.
    pub fn spawn(sync_fn: impl Fn() -> io::Result<()> + Send + Sync + 'static) -> Self {
        let (requests, mut inbox) = mpsc::unbounded_channel::<oneshot::Sender<SyncResult>>();
        let runs = Arc::new(AtomicU64::new(0));
        let sync_fn: Arc<SyncFn> = Arc::new(sync_fn);
        let counter = runs.clone();
        tokio::spawn(async move {
            while let Some(first) = inbox.recv().await {
                let mut waiters = vec![first];
                while let Ok(next) = inbox.try_recv() {
                    waiters.push(next);
                }
                let run = sync_fn.clone();
                let result = match tokio::task::spawn_blocking(move || run()).await {
                    Ok(result) => result.map_err(Arc::new),
                    Err(join) => Err(Arc::new(io::Error::other(format!(
                        "sync task failed: {join}"
                    )))),
                };
                counter.fetch_add(1, Ordering::Relaxed);
                for waiter in waiters {
                    let _ = waiter.send(result.clone());
                }
            }
        });
        Self { requests, runs }
    }

    /// Waits until everything written before this call is durable.
    pub async fn sync(&self) -> io::Result<()> {
        let (done, wait) = oneshot::channel();
        self.requests
            .send(done)
            .map_err(|_| io::Error::other("the sync task has stopped"))?;
        match wait.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(io::Error::new(error.kind(), error.to_string())),
            Err(_) => Err(io::Error::other("the sync task has stopped")),
        }
    }

    /// How many syncs have run (for status and tests).
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Condvar, Mutex};

    /// A sync function that blocks until the test opens the gate, counting its calls.
    #[derive(Default)]
    struct Gate {
        open: Mutex<bool>,
        opened: Condvar,
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writers_that_arrive_during_a_sync_share_the_next_one() {
        let gate = Arc::new(Gate::default());
        let in_sync = Arc::new(tokio::sync::Notify::new());
        let (g, n) = (gate.clone(), in_sync.clone());
        let syncer = GroupSync::spawn(move || {
            n.notify_one();
            let mut open = g.open.lock().unwrap();
            while !*open {
                open = g.opened.wait(open).unwrap();
            }
            Ok(())
        });

        let first = tokio::spawn({
            let s = syncer.clone();
            async move { s.sync().await }
        });
        in_sync.notified().await; // sync #1 is running and blocked
        // Ten writers queue up while it runs (enqueued directly, so none can be late).
        let mut later = Vec::new();
        for _ in 0..10 {
            let (done, wait) = oneshot::channel();
            syncer.requests.send(done).unwrap();
            later.push(wait);
        }
        *gate.open.lock().unwrap() = true;
        gate.opened.notify_all();

        first.await.unwrap().unwrap();
        for wait in later {
            wait.await.unwrap().unwrap();
        }
        assert_eq!(syncer.runs(), 2, "11 writers should need exactly 2 syncs");
    }

    #[tokio::test]
    async fn a_failed_sync_reaches_every_waiter() {
        let syncer = GroupSync::spawn(|| Err(io::Error::other("disk on fire")));
        let err = syncer.sync().await.unwrap_err();
        assert!(err.to_string().contains("disk on fire"));
    }
}
