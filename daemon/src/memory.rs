//! Giving memory back to the system after a burst of connections. glibc's allocator keeps
//! what a thread freed in that thread's arena, so a thousand `/events` followers that come
//! and go leave omnid's resident memory where their peak took it (11 MB → 44 MB after four
//! rounds of 1,000). Whenever connections end, one trim follows after a short quiet spell
//! (`malloc_trim`, which returns the free pages of every arena), so bursts coalesce into
//! one trim and a steady stream of requests trims at most once per spell.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How long after a connection ends the trim runs: the ends of one burst share it.
const QUIET: Duration = Duration::from_secs(1);

static FREED: Notify = Notify::const_new();
static RUNNING: AtomicBool = AtomicBool::new(false);

/// Says that something holding memory (a connection, its buffers) has just gone away.
/// Cheap: it only wakes the trimming task, if there is one.
pub fn freed() {
    if RUNNING.load(Ordering::Relaxed) {
        FREED.notify_one();
    }
}

/// Blocks this large or larger are mapped on their own and unmapped when freed.
const MMAP_THRESHOLD: i32 = 1024 * 1024;

/// Runs the trims until `shutdown`. Also fixes glibc's threshold for mapping a block on
/// its own: left dynamic, it rises to the largest block freed (a 20 MB request body), after
/// which such blocks come from the arenas and stay with the process (105 MB kept after one
/// 20 MB body, 19 MB before it).
pub fn spawn_release(tracker: &TaskTracker, shutdown: CancellationToken) {
    fix_mmap_threshold();
    RUNNING.store(true, Ordering::Relaxed);
    tracker.spawn(async move {
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = FREED.notified() => {}
            }
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(QUIET) => {}
            }
            let started = std::time::Instant::now();
            let released = tokio::task::spawn_blocking(trim).await.unwrap_or(false);
            tracing::trace!(
                released,
                us = started.elapsed().as_micros() as u64,
                "memory trimmed"
            );
        }
    });
}

/// Returns the allocator's free pages to the system; whether any were.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn trim() -> bool {
    // SAFETY: malloc_trim takes no pointers and may be called from any thread at any time.
    #[allow(unsafe_code)]
    let released = unsafe { libc::malloc_trim(0) };
    released != 0
}

/// Other allocators give memory back on their own.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn trim() -> bool {
    false
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fix_mmap_threshold() {
    // SAFETY: mallopt takes plain integers and may be called at any time.
    #[allow(unsafe_code)]
    let set = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) };
    if set == 0 {
        tracing::debug!("the allocator's mmap threshold could not be fixed");
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fix_mmap_threshold() {}
