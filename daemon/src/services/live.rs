//! The settings in effect: the configuration and what is built from it (the model API
//! client, the breaker, the diagnostics policy). Swapped as a whole on
//! SIGHUP, so a send always works with one consistent snapshot, and a reload never
//! disturbs a send in flight.

use std::sync::{Arc, RwLock};

use anyhow::Context;

use super::endpoints::{Breakers, Endpoint};
use crate::config::Config;
use crate::diag::Policy;
use crate::provider::{ModelApi, UnknownProvider, http_client};
use crate::resilience::{Breaker, BreakerStatus};

/// Settings in effect for new sends.
pub struct Live {
    /// The configuration in effect: the last one applied, with what only a restart changes
    /// kept as the daemon started.
    pub config: Config,
    /// What diagnostics redact and record.
    pub diag: Policy,
    /// One connection pool for every provider.
    http: reqwest::Client,
    /// Answers every model when set (the session layer's tests give a scripted one).
    fixed: Option<Arc<dyn ModelApi>>,
    /// Every endpoint's circuit breaker.
    breakers: Arc<Breakers>,
}

impl Live {
    /// Builds the live settings from a configuration. The breakers (and what they learned)
    /// are kept if their settings did not change.
    pub fn build(config: Config, previous: Option<&Live>) -> anyhow::Result<Self> {
        let http = http_client().context("cannot build the HTTP client")?;
        Ok(Self::assemble(config, http, None, previous))
    }

    /// The live settings of a configuration, every model answered by `provider` (the
    /// session layer's tests give a scripted one).
    #[cfg(test)]
    pub fn with_provider(
        config: Config,
        provider: Arc<dyn ModelApi>,
        previous: Option<&Live>,
    ) -> Self {
        Self::assemble(config, reqwest::Client::new(), Some(provider), previous)
    }

    fn assemble(
        config: Config,
        http: reqwest::Client,
        fixed: Option<Arc<dyn ModelApi>>,
        previous: Option<&Live>,
    ) -> Self {
        let breakers = Breakers::carried(
            previous.map(|old| &old.breakers),
            config.breaker_failures,
            config.breaker_cooldown,
        );
        Self {
            diag: config.diag_policy(),
            http,
            fixed,
            breakers,
            config,
        }
    }

    /// The endpoint a model reference names (`MODEL` or `PROVIDER/MODEL`).
    pub fn endpoint(&self, reference: &str) -> Result<Endpoint, UnknownProvider> {
        let providers = &self.config.provider;
        let resolved = providers.resolve(reference)?;
        let api = match &self.fixed {
            Some(api) => api.clone(),
            None => resolved
                .provider
                .client(&self.http, resolved.model, providers.idle_timeout),
        };
        let kind = resolved.provider.kind;
        let breaker = self
            .breakers
            .of(&kind.family().label(api.url(), resolved.model));
        Ok(Endpoint {
            reference: resolved.reference(),
            provider: resolved.provider.name.clone(),
            kind,
            model: resolved.model.to_string(),
            api,
            breaker,
            max_tool_result: self.config.context.max_tool_result,
        })
    }

    /// The daemon's default model's endpoint (its reference was checked when the
    /// configuration was read).
    pub fn default_endpoint(&self) -> Result<Endpoint, UnknownProvider> {
        self.endpoint(&self.config.provider.model)
    }

    /// The breaker of an endpoint by its label (the proxy's upstream URL).
    pub fn breaker(&self, label: &str) -> Arc<Breaker> {
        self.breakers.of(label)
    }

    /// Every endpoint's breaker asked so far, the default model's included.
    pub fn breaker_statuses(&self) -> Vec<BreakerStatus> {
        // The default model's breaker is shown from the start, before anything was sent.
        let _ = self.default_endpoint();
        self.breakers.statuses(std::time::Instant::now())
    }

    /// The client that sends to `url` (a recorded request's), if a configured provider
    /// serves it: how a diagnostic record is replayed.
    pub fn api_for_url(&self, url: &str) -> Option<Arc<dyn ModelApi>> {
        if let Some(api) = &self.fixed {
            return Some(api.clone());
        }
        let providers = &self.config.provider;
        providers.all().find_map(|provider| {
            let base = provider.base_url.trim_end_matches('/');
            let rest = url.strip_prefix(base)?;
            let model = provider.kind.family().model_in_path(rest)?;
            Some(provider.client(&self.http, model, providers.idle_timeout))
        })
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
