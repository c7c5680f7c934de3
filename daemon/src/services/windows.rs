//! The one place that answers "how many input tokens does PROVIDER/MODEL take": the
//! configuration's `[windows]` entry, else what the model's API said (Gemini's
//! `inputTokenLimit`, asked once per provider and model and kept in memory), else the
//! documented window of a known model ([`super::known_windows`]), else unknown: a window
//! is never guessed.
//!
//! Asking the API never holds up a send: [`ModelWindows::window`] only reads what is
//! known, and [`ModelWindows::learn`] is awaited by whoever can afford it. A failed ask is
//! remembered for [`RETRY_AFTER`] before the API is asked again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::endpoints::Endpoint;
use super::known_windows::known_window;
use super::live::Live;
use crate::provider::Kind;

/// How long a failed ask of the API is remembered before the API is asked again.
pub const RETRY_AFTER: Duration = Duration::from_secs(600);

/// A model's input window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Window {
    /// How many input tokens it takes.
    pub tokens: u64,
    /// Who said so.
    pub source: WindowSource,
}

/// Where a window comes from, in the order they are asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WindowSource {
    /// The configuration's `[windows]` table.
    Config,
    /// The model's API (Gemini's `inputTokenLimit`).
    Api,
    /// The documented window of a known model.
    Known,
}

impl WindowSource {
    /// How clients name it (`config`, `api`, `known`).
    pub fn as_str(self) -> &'static str {
        match self {
            WindowSource::Config => "config",
            WindowSource::Api => "api",
            WindowSource::Known => "known",
        }
    }
}

/// What asking a model's API came to.
#[derive(Debug, Clone, Copy)]
enum Learned {
    /// An ask is under way.
    Asking,
    /// The API said.
    Limit(u64),
    /// The ask failed, or the API did not say, at this time.
    Failed(Instant),
}

/// What the model APIs said of their windows, by provider and model.
#[derive(Debug, Default)]
pub struct ModelWindows {
    learned: Mutex<HashMap<(String, String), Learned>>,
}

impl ModelWindows {
    /// Nothing learned yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The window of `model` at `provider` (of `kind`), from what is known now: never
    /// waits, never asks anything. `None`: unknown.
    pub fn window(&self, live: &Live, provider: &str, kind: Kind, model: &str) -> Option<Window> {
        let at = |source| move |tokens| Window { tokens, source };
        live.config
            .windows
            .of(provider, model)
            .map(at(WindowSource::Config))
            .or_else(|| {
                self.learned(provider, kind, model)
                    .map(at(WindowSource::Api))
            })
            .or_else(|| known_window(model).map(at(WindowSource::Known)))
    }

    /// What the API said of `model`'s window, if it was asked and answered.
    fn learned(&self, provider: &str, kind: Kind, model: &str) -> Option<u64> {
        if !kind.family().tells_input_limit() {
            return None;
        }
        match self.lock().get(&(provider.to_string(), model.to_string())) {
            Some(Learned::Limit(tokens)) => Some(*tokens),
            _ => None,
        }
    }

    /// Asks `endpoint`'s API for its model's window, unless it answered already, is being
    /// asked, or failed less than [`RETRY_AFTER`] ago. A no-op for APIs that do not say
    /// (OpenAI-compatible, Anthropic). A failure is logged (without the key) and
    /// remembered; it never reaches a send.
    pub async fn learn(&self, endpoint: &Endpoint) {
        if !endpoint.kind.family().tells_input_limit() || !self.claim(endpoint) {
            return;
        }
        // An ask dropped half-way (its caller cancelled) counts as a failure, not as one
        // still under way.
        let mut claim = Claim {
            windows: self,
            key: key_of(endpoint),
            outcome: Learned::Failed(Instant::now()),
        };
        match endpoint.api.input_token_limit().await {
            Ok(Some(tokens)) => claim.outcome = Learned::Limit(tokens),
            Ok(None) => {
                tracing::debug!(model = %endpoint.reference, "the API gives no input token limit");
            }
            Err(error) => {
                tracing::warn!(model = %endpoint.reference, "cannot learn the model's context window: {error}");
            }
        }
        claim.outcome = match claim.outcome {
            Learned::Failed(_) => Learned::Failed(Instant::now()),
            other => other,
        };
    }

    /// Marks `endpoint` as being asked, if it should be: true when the caller asks.
    fn claim(&self, endpoint: &Endpoint) -> bool {
        let mut learned = self.lock();
        let due = match learned.get(&key_of(endpoint)) {
            None => true,
            Some(Learned::Failed(at)) => at.elapsed() >= RETRY_AFTER,
            Some(Learned::Asking | Learned::Limit(_)) => false,
        };
        if due {
            learned.insert(key_of(endpoint), Learned::Asking);
        }
        due
    }

    /// Makes every remembered failure `by` older (a test's way to let time pass while real
    /// HTTP runs on real time).
    #[cfg(test)]
    fn age_failures(&self, by: Duration) {
        for learned in self.lock().values_mut() {
            if let Learned::Failed(at) = learned {
                *at = at.checked_sub(by).unwrap_or(*at);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Learned>> {
        self.learned.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// An ask under way: what it came to is recorded when it ends, however it ends.
struct Claim<'a> {
    windows: &'a ModelWindows,
    key: (String, String),
    outcome: Learned,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let key = std::mem::take(&mut self.key);
        self.windows.lock().insert(key, self.outcome);
    }
}

fn key_of(endpoint: &Endpoint) -> (String, String) {
    (endpoint.provider.clone(), endpoint.model.clone())
}

#[cfg(test)]
mod tests;
