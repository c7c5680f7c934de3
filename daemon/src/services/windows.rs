//! PLACEHOLDER until the context-window lookup lands: the types the session layer uses.

use crate::provider::Kind;

use super::Live;

/// A model's input window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Tokens it takes.
    pub tokens: u64,
    /// Where that came from.
    pub source: WindowSource,
}

/// Where a window's size came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSource {
    /// The configuration's `[windows]`.
    Config,
    /// The model API.
    Api,
    /// The table of known models.
    Known,
}

/// Windows known so far.
#[derive(Debug, Default)]
pub struct Windows;

impl Windows {
    /// PLACEHOLDER.
    pub fn window(
        &self,
        _live: &Live,
        _provider: &str,
        _kind: Kind,
        _model: &str,
    ) -> Option<Window> {
        None
    }
}
