//! Group commit: many writers wait for one sync.
//!
//! A writer first applies its change, then calls [`GroupSync::sync`], which hands it a
//! ticket. If no sync is running, the writer leads one: it covers every ticket handed out
//! before it starts, because those writers' changes were already applied. Writers that
//! arrive while it runs wait and share the next one. N concurrent commits therefore cost
//! about two syncs, not N. When the last sync was shared (others are committing too), the
//! leader waits four times as long as that sync took (at most 1 ms) before starting the
//! next, so the writers arriving meanwhile share it as well: under load a commit waits a
//! little longer and the disk syncs far less often (64 sessions sending at once: about
//! 0.1 syncs per turn instead of 0.25). A lone writer never waits. There is no background
//! task: dropping the owner releases everything the sync function holds at once.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

type SyncFn = dyn Fn() -> io::Result<()> + Send + Sync;

#[derive(Default)]
struct State {
    /// Tickets handed out.
    issued: u64,
    /// A sync is running.
    running: bool,
    /// Every ticket up to this one is durable.
    durable_upto: u64,
    /// The latest failed sync: the tickets it covered and its error.
    failed: Option<(u64, Arc<io::Error>)>,
    /// How long the last sync took, if it was shared by more than one writer.
    last_shared: Option<Duration>,
}

/// How many times the last shared sync's duration a leader waits for more writers.
const GATHER_FACTOR: u32 = 4;

/// The longest a leader waits for more writers to share its sync.
const MAX_GATHER: Duration = Duration::from_micros(1000);

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Shares syncs between concurrent writers.
pub struct GroupSync {
    sync_fn: Arc<SyncFn>,
    state: Arc<Mutex<State>>,
    finished: Notify,
    runs: AtomicU64,
}

impl GroupSync {
    /// `sync_fn` makes everything written so far durable; it runs on the blocking pool.
    pub fn new(sync_fn: impl Fn() -> io::Result<()> + Send + Sync + 'static) -> Self {
        Self {
            sync_fn: Arc::new(sync_fn),
            state: Arc::new(Mutex::new(State::default())),
            finished: Notify::new(),
            runs: AtomicU64::new(0),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Waits until everything written before this call is durable.
    pub async fn sync(&self) -> io::Result<()> {
        let ticket = {
            let mut state = self.state();
            state.issued += 1;
            state.issued
        };
        loop {
            // Register for the wake-up before looking, so none is missed.
            let finished = self.finished.notified();
            tokio::pin!(finished);
            finished.as_mut().enable();
            let leading = {
                let mut state = self.state();
                if state.durable_upto >= ticket {
                    return Ok(());
                }
                if let Some((upto, error)) = &state.failed
                    && *upto >= ticket
                {
                    return Err(io::Error::new(error.kind(), error.to_string()));
                }
                if state.running {
                    false
                } else {
                    state.running = true;
                    true
                }
            };
            if leading {
                self.lead().await;
            } else {
                finished.await;
            }
        }
    }

    /// Runs one sync on the blocking pool, covering every ticket issued when it starts.
    async fn lead(&self) {
        let run = self.sync_fn.clone();
        let gather = self
            .state()
            .last_shared
            .map(|took| (took * GATHER_FACTOR).min(MAX_GATHER));
        let shared_state = self.state.clone();
        let result = tokio::task::spawn_blocking(move || {
            if let Some(gather) = gather {
                std::thread::sleep(gather);
            }
            let covers = lock(&shared_state).issued;
            let started = Instant::now();
            (covers, run(), started.elapsed())
        })
        .await;
        self.runs.fetch_add(1, Ordering::Relaxed);
        let mut state = self.state();
        state.running = false;
        match result {
            Ok((covers, Ok(()), took)) => {
                let shared = covers - state.durable_upto > 1;
                state.last_shared = shared.then_some(took);
                state.durable_upto = state.durable_upto.max(covers);
            }
            Ok((covers, Err(error), _)) => state.failed = Some((covers, Arc::new(error))),
            Err(join) => {
                let error = io::Error::other(format!("the sync task failed: {join}"));
                state.failed = Some((state.issued, Arc::new(error)));
            }
        }
        drop(state);
        self.finished.notify_waiters();
    }

    /// How many syncs have run (for status and tests).
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Condvar;

    /// A sync function that blocks until the test opens the gate.
    #[derive(Default)]
    struct Gate {
        open: Mutex<bool>,
        opened: Condvar,
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writers_that_arrive_during_a_sync_share_the_next_one() {
        let gate = Arc::new(Gate::default());
        let in_sync = Arc::new(Notify::new());
        let (g, n) = (gate.clone(), in_sync.clone());
        let syncer = Arc::new(GroupSync::new(move || {
            n.notify_one();
            let mut open = g.open.lock().unwrap();
            while !*open {
                open = g.opened.wait(open).unwrap();
            }
            Ok(())
        }));

        let first = tokio::spawn({
            let s = syncer.clone();
            async move { s.sync().await }
        });
        in_sync.notified().await; // sync #1 is running and blocked
        let later: Vec<_> = (0..10)
            .map(|_| {
                let s = syncer.clone();
                tokio::spawn(async move { s.sync().await })
            })
            .collect();
        // Wait until all ten have their tickets, then let sync #1 finish.
        while syncer.state().issued < 11 {
            tokio::task::yield_now().await;
        }
        *gate.open.lock().unwrap() = true;
        gate.opened.notify_all();

        first.await.unwrap().unwrap();
        for task in later {
            task.await.unwrap().unwrap();
        }
        assert_eq!(syncer.runs(), 2, "11 writers should need exactly 2 syncs");
    }

    #[tokio::test]
    async fn a_failed_sync_reaches_its_writer_and_a_later_one_can_succeed() {
        let fail = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let f = fail.clone();
        let syncer = GroupSync::new(move || {
            if f.load(Ordering::Relaxed) {
                Err(io::Error::other("disk on fire"))
            } else {
                Ok(())
            }
        });
        let err = syncer.sync().await.unwrap_err();
        assert!(err.to_string().contains("disk on fire"));
        fail.store(false, Ordering::Relaxed);
        syncer.sync().await.unwrap();
    }
}
