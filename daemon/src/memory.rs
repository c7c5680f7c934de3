//! Giving memory back to the system after a burst of connections. glibc's allocator keeps
//! what a thread freed in that thread's arena, so a thousand `/events` followers that come
//! and go leave omnid's resident memory where their peak took it (11 MB → 44 MB after four
//! rounds of 1,000). Whenever connections end, one trim follows after a short quiet spell
//! (`malloc_trim`, which returns the free pages of every arena), so bursts coalesce into
//! one trim and a steady stream of requests trims at most once per spell.
//!
//! Before any thread starts, the allocator's arenas are capped at [`ARENAS`]
//! ([`limit_arenas`]): left alone, glibc gives each new thread an arena of its own, up to
//! eight per core, and omnid has about twenty threads (the runtime's, the blocking pool's,
//! sled's seven I/O threads, tantivy's). Memory freed in one arena serves only the threads
//! that use it: in the first minute of a busy recording proxy, resident memory grew about
//! four times as fast with sixteen arenas as with two (+35 MB against +8 MB in 30 s), for
//! the same CPU per request. What grows after that is the store's (sled's page table;
//! docs/performance.md).

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

/// The most arenas glibc's allocator keeps, unless the user chose (`MALLOC_ARENA_MAX`,
/// `GLIBC_TUNABLES`).
pub const ARENAS: i32 = 2;

/// Caps the allocator's arenas at [`ARENAS`], unless the user chose (or the allocator is
/// not glibc's). Call it before any thread starts: a thread keeps the arena it first
/// allocated from, and glibc fixes its limit once it has eight arenas.
pub fn limit_arenas() {
    let chosen = ["MALLOC_ARENA_MAX", "GLIBC_TUNABLES"]
        .iter()
        .any(|name| std::env::var_os(name).is_some());
    if !chosen {
        // Nothing to say if glibc refuses: logging is not set up yet, and the default
        // arenas still work.
        cap_arenas(ARENAS);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn cap_arenas(most: i32) -> bool {
    // SAFETY: mallopt takes plain integers and may be called at any time.
    #[allow(unsafe_code)]
    let set = unsafe { libc::mallopt(libc::M_ARENA_MAX, most) };
    set != 0
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn cap_arenas(_most: i32) -> bool {
    false
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

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};

    /// How many arenas the allocator has, from its own report (`malloc_info`).
    fn arenas() -> usize {
        let mut text: *mut libc::c_char = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        // SAFETY: open_memstream gets valid places for its buffer and size; the stream is
        // closed before the buffer is read, and the buffer (malloc'd by glibc) is freed once.
        #[allow(unsafe_code)]
        let report = unsafe {
            let stream = libc::open_memstream(&mut text, &mut size);
            assert!(!stream.is_null());
            assert_eq!(libc::malloc_info(0, stream), 0);
            libc::fclose(stream);
            let bytes = std::slice::from_raw_parts(text.cast::<u8>(), size).to_vec();
            libc::free(text.cast());
            bytes
        };
        String::from_utf8_lossy(&report)
            .matches("<heap nr=")
            .count()
    }

    #[test]
    fn threads_started_after_the_cap_share_the_capped_arenas() {
        let before = arenas();
        assert!(cap_arenas(ARENAS));
        let threads = 8;
        let all_hold = Arc::new(Barrier::new(threads));
        let held: Vec<_> = (0..threads)
            .map(|_| {
                let all_hold = all_hold.clone();
                std::thread::spawn(move || {
                    // Small blocks, each thread holding its own until all of them do.
                    let blocks: Vec<Vec<u8>> = (0..64).map(|i| vec![i as u8; 4096]).collect();
                    all_hold.wait();
                    blocks.len()
                })
            })
            .collect();
        for thread in held {
            assert_eq!(thread.join().unwrap(), 64);
        }
        let after = arenas();
        assert!(
            after <= before.max(ARENAS as usize),
            "{threads} new threads took the allocator from {before} arenas to {after}"
        );
    }
}
