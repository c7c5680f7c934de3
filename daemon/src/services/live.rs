//! The settings in effect: the configuration and what is built from it (the model API
//! client, the breaker, the diagnostics policy). Swapped as a whole on
//! SIGHUP, so a send always works with one consistent snapshot, and a reload never
//! disturbs a send in flight.

use std::sync::{Arc, RwLock};

use anyhow::Context;

use crate::config::Config;
use crate::diag::Policy;
use crate::provider::{Gemini, ModelApi};
use crate::resilience::Breaker;

/// Settings in effect for new sends.
pub struct Live {
    /// The configuration in effect: the last one applied, with what only a restart changes
    /// kept as the daemon started.
    pub config: Config,
    /// What diagnostics redact and record.
    pub diag: Policy,
    /// The model API client.
    pub provider: Arc<dyn ModelApi>,
    /// The endpoint's circuit breaker.
    pub breaker: Arc<Breaker>,
}

impl Live {
    /// Builds the live settings from a configuration. The breaker (and what it learned) is
    /// kept if the endpoint and its settings did not change.
    pub fn build(config: Config, previous: Option<&Live>) -> anyhow::Result<Self> {
        let provider =
            Arc::new(Gemini::new(&config.provider).context("cannot build the HTTP client")?);
        Ok(Self::with_provider(config, provider, previous))
    }

    /// The live settings of a configuration, answered by `provider` (the session layer's
    /// tests give a scripted one).
    pub fn with_provider(
        config: Config,
        provider: Arc<dyn ModelApi>,
        previous: Option<&Live>,
    ) -> Self {
        let breaker = match previous {
            Some(old)
                if old.breaker.endpoint() == provider.url()
                    && old.breaker.settings()
                        == (config.breaker_failures, config.breaker_cooldown) =>
            {
                old.breaker.clone()
            }
            _ => Breaker::new(
                provider.url(),
                config.breaker_failures,
                config.breaker_cooldown,
            ),
        };
        Self {
            diag: config.diag_policy(),
            provider,
            breaker,
            config,
        }
    }
}

/// A value replaced as a whole while the daemon runs (on SIGHUP): whoever took a snapshot
/// keeps working with it, new readers get the new one.
pub struct Swap<T>(RwLock<Arc<T>>);

impl<T> Swap<T> {
    /// Starts with this value.
    pub fn new(value: T) -> Self {
        Self(RwLock::new(Arc::new(value)))
    }

    /// The value now.
    pub fn get(&self) -> Arc<T> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Replaces the value; snapshots taken before keep the old one.
    pub fn set(&self, value: T) {
        *self.0.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(value);
    }
}
