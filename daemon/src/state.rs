//! The daemon's shared state, handed to every connection.

use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::Instant;

use crate::config::Config;
use crate::session::registry::Registry;
use crate::store::Store;

/// Everything a request handler may need.
pub struct Daemon {
    /// The resolved configuration (with the demo endpoint's URL if `--demo`).
    pub config: Config,
    /// The store.
    pub store: Arc<Store>,
    /// The sessions and their actors.
    pub sessions: Registry,
    /// When the daemon started.
    pub started: Instant,
    /// Open client connections.
    pub connections: AtomicU32,
    /// Prompts being answered now (shared with the actors).
    pub sends_in_flight: Arc<AtomicU32>,
}
