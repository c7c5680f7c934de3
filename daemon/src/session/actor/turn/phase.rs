//! Where a turn is in its life, named. A turn is prepared, perhaps compacted first, asked
//! of its model (attempt 1, 2, ...), perhaps of the next model of its chain, and stored:
//! [`Phase`] names each step and [`Life`] keeps them in order. The actor moves a turn on
//! while it prepares and stores; the attempts' task while it asks. At a turn's end its
//! whole life is traced in one line (`RUST_LOG=omnid=debug`), which says what happened
//! to a turn without reading its diagnostic records.

use std::fmt;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

/// One step of a turn's life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::session::actor) enum Phase {
    /// The wall seen coming, the context followed to the path, the body built, preflight.
    Preparing,
    /// A summary request of a compaction under way, with this many pieces still to
    /// summarise (this one included).
    Compacting { pieces_left: usize },
    /// Attempt `attempt` at `model` (its reference), streaming what arrives.
    Asking { model: String, attempt: u32 },
    /// `from` could not answer; the same context goes to `to`.
    FallingBack { from: String, to: String },
    /// What the model produced (or why it did not) being stored before anyone hears.
    Storing,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Phase::Preparing => f.write_str("preparing"),
            Phase::Compacting { pieces_left } => write!(f, "compacting ({pieces_left} left)"),
            Phase::Asking { model, attempt } => write!(f, "attempt {attempt} at {model}"),
            Phase::FallingBack { from, to } => write!(f, "{from} falls back to {to}"),
            Phase::Storing => f.write_str("storing"),
        }
    }
}

/// A turn's phases so far, in order: shared by the actor and the attempts' task of the
/// turn in flight (a clone is the same life).
#[derive(Clone, Default)]
pub(in crate::session::actor) struct Life(Arc<Mutex<Phases>>);

/// The turn under way's phases (and, for the tests' look, the last ended turn's).
#[derive(Default)]
struct Phases {
    now: Vec<Phase>,
    #[cfg(test)]
    last: Vec<Phase>,
}

impl Life {
    /// Moves the turn on to `phase`.
    pub(in crate::session::actor) fn enter(&self, session: Uuid, phase: Phase) {
        tracing::trace!(%session, %phase, "turn");
        self.phases().now.push(phase);
    }

    /// Ends the turn's life: traces it whole (`how` it ended); the next turn starts anew.
    pub(in crate::session::actor) fn end(&self, session: Uuid, how: &str) {
        let mut phases = self.phases();
        if phases.now.is_empty() {
            return;
        }
        let ended = std::mem::take(&mut phases.now);
        let path: Vec<String> = ended.iter().map(Phase::to_string).collect();
        tracing::debug!(%session, life = %path.join(" → "), "turn {how}");
        #[cfg(test)]
        {
            phases.last = ended;
        }
    }

    /// The phases of the last turn that ended.
    #[cfg(test)]
    pub(in crate::session::actor) fn last(&self) -> Vec<Phase> {
        self.phases().last.clone()
    }

    fn phases(&self) -> std::sync::MutexGuard<'_, Phases> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_life_is_kept_in_order_and_the_next_starts_anew() {
        let life = Life::default();
        let other = life.clone();
        let session = Uuid::nil();
        life.enter(session, Phase::Preparing);
        other.enter(
            session,
            Phase::Asking {
                model: "gemini/a".into(),
                attempt: 1,
            },
        );
        life.enter(session, Phase::Storing);
        life.end(session, "answered");
        let names: Vec<String> = other.last().iter().map(Phase::to_string).collect();
        assert_eq!(names, ["preparing", "attempt 1 at gemini/a", "storing"]);
        life.enter(session, Phase::Preparing);
        life.end(session, "failed");
        assert_eq!(
            other.last(),
            [Phase::Preparing],
            "the next turn starts anew"
        );
    }
}
