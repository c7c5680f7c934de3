//! Which session `-s` means when it is not given: the most recently used one.

use std::sync::Mutex;

use uuid::Uuid;

/// The most recently created or changed session, shared by all actors.
#[derive(Debug, Default)]
pub struct CurrentSession(Mutex<Option<Uuid>>);

impl CurrentSession {
    /// Starts with the given session (the most recently updated one in the store).
    pub fn new(initial: Option<Uuid>) -> Self {
        Self(Mutex::new(initial))
    }

    /// The current session, if any exists.
    pub fn get(&self) -> Option<Uuid> {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Marks a session as the most recently used.
    pub fn set(&self, id: Uuid) {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(id);
    }

    /// No session is current any more if `id` was (it is being purged).
    pub fn forget(&self, id: &Uuid) {
        let mut current = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if current.as_ref() == Some(id) {
            *current = None;
        }
    }
}
