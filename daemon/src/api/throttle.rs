//! Rate-limited warnings: a client sending garbage in a loop must not flood the journal.
//! At most a few warnings of a kind per window; the rest are counted and the count is
//! reported with the next warning let through.

use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug)]
struct State {
    window_start: Instant,
    sent: u32,
    suppressed: u64,
}

/// Lets a few warnings through per window.
#[derive(Debug)]
pub struct Throttle {
    window: Duration,
    per_window: u32,
    state: Mutex<Option<State>>,
}

impl Throttle {
    /// At most `per_window` warnings per `window`.
    pub fn new(per_window: u32, window: Duration) -> Self {
        Self {
            window,
            per_window,
            state: Mutex::new(None),
        }
    }

    /// Whether a warning may be written now; if so, how many were held back before it.
    pub fn allow(&self, now: Instant) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let state = state.get_or_insert(State {
            window_start: now,
            sent: 0,
            suppressed: 0,
        });
        if now.duration_since(state.window_start) >= self.window {
            state.window_start = now;
            state.sent = 0;
        }
        if state.sent < self.per_window {
            state.sent += 1;
            Some(std::mem::take(&mut state.suppressed))
        } else {
            state.suppressed += 1;
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_is_held_back_and_counted() {
        let throttle = Throttle::new(3, Duration::from_secs(10));
        let t0 = Instant::now();
        let allowed: Vec<Option<u64>> = (0..100).map(|_| throttle.allow(t0)).collect();
        assert_eq!(allowed.iter().filter(|a| a.is_some()).count(), 3);
        assert_eq!(allowed[0], Some(0));
        let later = t0 + Duration::from_secs(10);
        assert_eq!(
            throttle.allow(later),
            Some(97),
            "the next window reports the rest"
        );
    }
}
