//! Who hears of durable changes: one observer (the search index) is told which sessions
//! changed once their changes are durable, never before, and off the commit's own work
//! (the observer only queues the ids).

use std::sync::{Mutex, OnceLock};

use uuid::Uuid;

/// Told the ids of sessions whose changes became durable.
pub type Observer = Box<dyn Fn(&[Uuid]) + Send + Sync>;

/// The observer, and the sessions applied since the last sync began.
#[derive(Default)]
pub(super) struct Observers {
    observer: OnceLock<Observer>,
    unsynced: Mutex<Vec<Uuid>>,
}

impl Observers {
    /// Sets the observer; a second one is refused (returned).
    pub fn set(&self, observer: Observer) -> Result<(), Observer> {
        self.observer.set(observer)
    }

    /// Notes that a change to `session` was applied (nothing is kept without an observer).
    pub fn applied(&self, session: Uuid) {
        if self.observer.get().is_some() {
            let mut unsynced = self.unsynced.lock().unwrap_or_else(|e| e.into_inner());
            if unsynced.last() != Some(&session) {
                unsynced.push(session);
            }
        }
    }

    /// The sessions a sync that starts now makes durable.
    pub fn before_sync(&self) -> Vec<Uuid> {
        std::mem::take(&mut *self.unsynced.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// After a sync: tells the observer (it succeeded) or keeps them for the next one.
    pub fn after_sync(&self, sessions: Vec<Uuid>, durable: bool) {
        if sessions.is_empty() {
            return;
        }
        if durable {
            if let Some(observer) = self.observer.get() {
                observer(&sessions);
            }
        } else {
            let mut unsynced = self.unsynced.lock().unwrap_or_else(|e| e.into_inner());
            unsynced.extend(sessions);
        }
    }
}
