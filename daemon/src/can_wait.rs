//! Work done at a start that nobody waits for (checking every session's record) runs on a
//! thread of its own at the lowest priority (nice 19), so the first requests after a
//! start on a big store are not answered on cores it holds (`cold_start_ratio` in `cargo
//! bench -p omnid --bench scale`). A thread's priority can be lowered but not raised again
//! without privileges, so only a thread that does nothing else afterwards is lowered. The
//! search index's catch-up stays at the normal priority: a search waits for it.

/// Lowers the calling thread to the lowest priority, for good.
pub fn lower_this_thread() {
    let lowest = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19);
    if let Err(error) = lowest {
        tracing::debug!(%error, "work that can wait runs at the normal priority");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nice() -> i32 {
        rustix::process::getpriority_process(Some(rustix::thread::gettid())).unwrap()
    }

    #[test]
    fn a_lowered_thread_runs_at_the_lowest_priority_and_others_keep_theirs() {
        let before = nice();
        let lowered = std::thread::spawn(|| {
            lower_this_thread();
            nice()
        });
        assert_eq!(lowered.join().unwrap(), 19);
        assert_eq!(nice(), before);
    }
}
