//! The request-body bytes held at once across every connection (`request_body_budget_mb`).
//! Each body reserves room for its declared length before it is read, and for the rest
//! once it is whole, and keeps it until its request is done with the bytes (a proxied
//! request, until its last attempt). A body that finds no room waits, up to its time
//! limit, then is answered 503: a burst of large bodies waits its turn instead of taking the
//! daemon's memory (one 20 MB body once kept 233 MB while it was handled).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// No room came free in time: the budget, in MiB, that other bodies held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoRoom {
    /// The budget, in MiB.
    pub budget_mib: u64,
}

/// The budget when nothing sets it (in-process tests).
const DEFAULT_BUDGET_BYTES: u64 = 256 * 1024 * 1024;

/// Room is counted in KiB (a semaphore counts in `u32`).
const UNIT: u64 = 1024;

struct Budget {
    room: Arc<Semaphore>,
    units: u32,
}

static BUDGET: OnceLock<Budget> = OnceLock::new();

/// Sets the budget, once, at start (later calls change nothing).
pub fn set_body_budget(bytes: u64) {
    let _ = BUDGET.set(budget_of(bytes));
}

fn budget_of(bytes: u64) -> Budget {
    let units = u32::try_from((bytes / UNIT).max(1)).unwrap_or(u32::MAX >> 4);
    Budget {
        room: Arc::new(Semaphore::new(units as usize)),
        units,
    }
}

fn budget() -> &'static Budget {
    BUDGET.get_or_init(|| budget_of(DEFAULT_BUDGET_BYTES))
}

/// Room held in the budget for one body's bytes; given back when dropped.
#[derive(Debug, Default)]
pub struct Held {
    permits: Option<OwnedSemaphorePermit>,
}

impl Held {
    /// Nothing held yet.
    pub fn none() -> Self {
        Self::default()
    }

    /// Holds room for `bytes` in all (a body larger than the whole budget holds all of
    /// it), waiting up to `within` for others to give theirs back.
    pub async fn grow_to(&mut self, bytes: u64, within: Duration) -> Result<(), NoRoom> {
        let budget = budget();
        let wanted = u32::try_from(bytes.div_ceil(UNIT)).unwrap_or(u32::MAX);
        let wanted = wanted.min(budget.units);
        let have = self.permits.as_ref().map_or(0, |p| p.num_permits() as u32);
        if wanted <= have {
            return Ok(());
        }
        let more = budget.room.clone().acquire_many_owned(wanted - have);
        let busy = || NoRoom {
            budget_mib: u64::from(budget.units) * UNIT / (1024 * 1024),
        };
        let more = tokio::time::timeout(within, more)
            .await
            .map_err(|_| busy())?
            .map_err(|_| busy())?;
        match &mut self.permits {
            Some(permits) => permits.merge(more),
            None => self.permits = Some(more),
        }
        Ok(())
    }
}
