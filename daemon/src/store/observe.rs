//! Who hears of durable changes: one observer (the search index) is told which sessions
//! changed, and the nodes each gained, once their changes are durable, never before, and
//! off the commit's own work (the observer only queues them). Handing the nodes over
//! spares the observer reading them back from the store: under proxy load that was a
//! twentieth of omnid's CPU, and its reads pushed the writers' pages out of sled's cache.
//!
//! Commits share syncs, so one commit's sync may carry another's sessions (taken when it
//! began). A commit therefore returns only once every list taken up to its own has been
//! handed on: whoever hears of an acknowledged commit (a search sent right after it) finds
//! it already queued for the observer.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, OnceLock};

use tokio::sync::Notify;
use uuid::Uuid;

use crate::model::NodeRecord;

/// What applied changes gave one session, as the observer hears of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// The session changed.
    pub session: Uuid,
    /// The nodes its changes added, in the order applied (none for a change that only
    /// moved its head or renamed it).
    pub nodes: Vec<NodeRecord>,
}

/// Told what changes became durable, session by session.
pub type Observer = Box<dyn Fn(Vec<Applied>) + Send + Sync>;

/// The sessions applied since the last sync began, and the lists taken but not yet handed
/// on (each numbered in the order taken).
#[derive(Default)]
struct Unsynced {
    sessions: Vec<Applied>,
    taken: u64,
    outstanding: BTreeSet<u64>,
}

/// The observer, and the sessions applied but not yet handed on.
#[derive(Default)]
pub(super) struct Observers {
    observer: OnceLock<Observer>,
    unsynced: Mutex<Unsynced>,
    handed_on: Notify,
}

/// The sessions a sync that starts now makes durable, and where its caller stands. A list
/// dropped before it is handed on (its sync's caller went away) gives its sessions back
/// for the next sync, so no later commit waits for it.
pub(super) struct Taken<'a> {
    observers: &'a Observers,
    sessions: Vec<Applied>,
    /// This list's number, if it holds any session (taken once it is handed on).
    number: Option<u64>,
    /// The lists taken up to this one: each must be handed on before the caller returns.
    upto: u64,
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if let Some(number) = self.number.take() {
            let mut unsynced = self.observers.lock();
            unsynced.sessions.append(&mut self.sessions);
            unsynced.outstanding.remove(&number);
            drop(unsynced);
            self.observers.handed_on.notify_waiters();
        }
    }
}

impl Observers {
    fn lock(&self) -> MutexGuard<'_, Unsynced> {
        self.unsynced.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the observer; a second one is refused (returned).
    pub fn set(&self, observer: Observer) -> Result<(), Observer> {
        self.observer.set(observer)
    }

    /// Notes that a change to `session`, adding `nodes`, was applied (nothing is kept
    /// without an observer).
    pub fn applied(&self, session: Uuid, nodes: &[NodeRecord]) {
        if self.observer.get().is_none() {
            return;
        }
        let mut unsynced = self.lock();
        match unsynced.sessions.last_mut() {
            Some(last) if last.session == session => last.nodes.extend_from_slice(nodes),
            _ => unsynced.sessions.push(Applied {
                session,
                nodes: nodes.to_vec(),
            }),
        }
    }

    /// The sessions a sync that starts now makes durable.
    pub fn before_sync(&self) -> Taken<'_> {
        let mut unsynced = self.lock();
        let sessions = std::mem::take(&mut unsynced.sessions);
        let number = (!sessions.is_empty()).then(|| {
            unsynced.taken += 1;
            let number = unsynced.taken;
            unsynced.outstanding.insert(number);
            number
        });
        Taken {
            observers: self,
            sessions,
            number,
            upto: unsynced.taken,
        }
    }

    /// After a sync: tells the observer (it succeeded) or keeps the sessions for the next
    /// one; then waits until every list taken up to this caller's has been handed on.
    pub async fn after_sync(&self, mut taken: Taken<'_>, durable: bool) {
        if durable && taken.number.is_some() {
            let sessions = std::mem::take(&mut taken.sessions);
            if let Some(observer) = self.observer.get() {
                observer(sessions);
            }
        }
        // Handed on (or, not durable, given back for the next sync) by its drop.
        let upto = taken.upto;
        drop(taken);
        loop {
            let handed_on = self.handed_on.notified();
            tokio::pin!(handed_on);
            handed_on.as_mut().enable();
            let first = self.lock().outstanding.first().copied();
            if first.is_none_or(|first| first > upto) {
                return;
            }
            handed_on.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    /// A commit whose sessions another commit's sync carried returns only once that
    /// other commit has handed them on.
    #[tokio::test]
    async fn a_commit_returns_once_the_list_that_carried_it_is_handed_on() {
        let observers = Observers::default();
        let told = Arc::new(Mutex::new(Vec::new()));
        let heard = told.clone();
        let _ = observers.set(Box::new(move |changed: Vec<Applied>| {
            let mut heard = heard.lock().unwrap_or_else(|e| e.into_inner());
            heard.extend(changed.into_iter().map(|applied| applied.session))
        }));
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        observers.applied(a, &[]);
        observers.applied(b, &[]);
        let carrier = observers.before_sync(); // takes a and b
        let own = observers.before_sync(); // b's commit: nothing left to take
        let waiting = observers.after_sync(own, true);
        tokio::pin!(waiting);
        let early = tokio::time::timeout(std::time::Duration::from_millis(20), &mut waiting);
        assert!(
            early.await.is_err(),
            "b's commit waits for the list that holds b"
        );
        observers.after_sync(carrier, true).await;
        waiting.await;
        assert_eq!(*told.lock().unwrap_or_else(|e| e.into_inner()), [a, b]);

        // A list whose caller went away gives its sessions back; no one waits for it.
        observers.applied(a, &[]);
        let dropped = observers.before_sync();
        drop(dropped);
        let next = observers.before_sync();
        observers.after_sync(next, true).await;
        assert_eq!(*told.lock().unwrap_or_else(|e| e.into_inner()), [a, b, a]);
    }
}
