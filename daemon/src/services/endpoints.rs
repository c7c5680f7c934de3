//! Where a send can go: a model reference (`local/qwen2.5:7b`) resolved to a client for
//! that model at that provider, with the circuit breaker of that endpoint. Breakers are
//! kept per endpoint (provider and model) for the daemon's life, and across reloads while
//! the breaker settings stay the same, so one failing model never stops another.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::provider::{Kind, ModelApi, Target};
use crate::resilience::{Breaker, BreakerState, BreakerStatus};

/// One model at one provider, ready to be asked.
#[derive(Clone)]
pub struct Endpoint {
    /// The canonical reference, `PROVIDER/MODEL`.
    pub reference: String,
    /// The provider's name.
    pub provider: String,
    /// Its wire format.
    pub kind: Kind,
    /// The model's name there.
    pub model: String,
    /// The client.
    pub api: Arc<dyn ModelApi>,
    /// The endpoint's circuit breaker.
    pub breaker: Arc<Breaker>,
    /// Tool results over this many bytes are sent to it cut (`context.max_tool_result`
    /// in effect when it was resolved); 0 never cuts.
    pub max_tool_result: usize,
}

impl Endpoint {
    /// Where its requests go, for rendering a body.
    pub fn target(&self) -> Target<'_> {
        Target {
            provider: &self.provider,
            kind: self.kind,
            model: &self.model,
            max_tool_result: self.max_tool_result,
        }
    }
}

/// How many endpoints' breakers are kept before untroubled ones are forgotten.
pub const MAX_BREAKERS: usize = 1024;

/// The breakers of every endpoint asked so far, created on first use.
pub struct Breakers {
    settings: (u32, Duration),
    map: Mutex<HashMap<String, Arc<Breaker>>>,
}

impl Breakers {
    /// No breakers yet, opening after `failures` in a row for `cooldown`.
    pub fn new(failures: u32, cooldown: Duration) -> Self {
        Self {
            settings: (failures, cooldown),
            map: Mutex::new(HashMap::new()),
        }
    }

    /// The breakers of `previous` if its settings are these, else new ones.
    pub fn carried(
        previous: Option<&Arc<Breakers>>,
        failures: u32,
        cooldown: Duration,
    ) -> Arc<Self> {
        match previous {
            Some(old) if old.settings == (failures, cooldown) => old.clone(),
            _ => Arc::new(Self::new(failures, cooldown)),
        }
    }

    /// The breaker of `endpoint` (its label, as messages and `status` show it). The map is
    /// bounded: past [`MAX_BREAKERS`] endpoints (a proxy client naming models at will), the
    /// breakers that have seen no failure are forgotten, as a new one would be the same.
    pub fn of(&self, endpoint: &str) -> Arc<Breaker> {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_BREAKERS && !map.contains_key(endpoint) {
            let now = Instant::now();
            map.retain(|_, breaker| {
                let status = breaker.status(now);
                status.state != BreakerState::Closed || status.consecutive_failures > 0
            });
        }
        map.entry(endpoint.to_string())
            .or_insert_with(|| Breaker::new(endpoint, self.settings.0, self.settings.1))
            .clone()
    }

    /// Every breaker's state, by endpoint.
    pub fn statuses(&self, now: Instant) -> Vec<BreakerStatus> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let mut statuses: Vec<BreakerStatus> = map.values().map(|b| b.status(now)).collect();
        statuses.sort_by(|a, b| a.endpoint.cmp(&b.endpoint));
        statuses
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untroubled_breakers_are_forgotten_once_there_are_too_many() {
        let breakers = Breakers::new(1, Duration::from_secs(60));
        let failing = breakers.of("failing");
        let permit = failing.admit(Instant::now()).expect("closed at first");
        permit.failed(Instant::now());
        for n in 0..MAX_BREAKERS * 3 {
            breakers.of(&format!("model-{n}"));
        }
        let kept = breakers.statuses(Instant::now());
        assert!(kept.len() <= MAX_BREAKERS, "{}", kept.len());
        assert!(
            kept.iter()
                .any(|b| b.endpoint == "failing" && b.state == BreakerState::Open),
            "what a breaker learned is kept"
        );
    }
}
