//! Who may change a session on a shared store: one instance at a time, under a lease the
//! database keeps. An instance takes a session's lease when a change that lasts begins (a
//! turn, a compaction), renews it while the change is in flight, and lets it go when the
//! change ends; between changes nobody holds it, so any instance takes the session at
//! once. Each lease taken carries a new fencing number, and every commit checks the
//! number in its own transaction: an instance that was paused or cut off past its lease
//! can never write after another took the session over. The embedded store is one
//! instance's alone: it has no leases.

use uuid::Uuid;

/// The fencing number of a lease: it grows each time the session's lease is taken, so a
/// commit under an older one is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence(pub(super) i64);

/// A session's lease, held by this instance while a change is in flight, and renewed in
/// the background until it is let go ([`crate::store::Store::release`]) or dropped (then
/// it runs out by itself).
pub struct Lease {
    pub(super) session: Uuid,
    pub(super) fence: Fence,
    /// The task that renews it.
    pub(super) renewal: tokio::task::JoinHandle<()>,
}

impl Lease {
    /// The number every commit under this lease is checked against.
    pub fn fence(&self) -> Fence {
        self.fence
    }

    /// The session it is for.
    pub fn session(&self) -> Uuid {
        self.session
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.renewal.abort();
    }
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "lease of {} (fence {})", self.session, self.fence.0)
    }
}
