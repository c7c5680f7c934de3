//! `omnid`: the Omni daemon. It owns chat sessions with a model API and keeps each one as an
//! append-only tree in sled, so that no crash, restart, API error or undo ever loses a turn.
//!
//! Data flows one way on a send: client → socket → connection task → the session's actor
//! → provider (HTTP) → events back through the actor to the client. See
//! docs/ARCHITECTURE.md.

mod api;
mod can_wait;
mod config;
mod demo;
mod diag;
mod exchange;
mod http;
mod listeners;
mod memory;
pub mod model;
mod notify;
mod private;
mod provider;
mod proxy;
mod reload;
mod resilience;
mod run;
mod scratch;
pub mod search;
mod server;
mod services;
mod session;
mod signals;
pub mod store;
mod text;
mod time;
mod usage;
mod web;

pub use config::{Action, Args, Config, CopyArgs, Env, StoreAction};
pub use memory::limit_arenas;
pub use provider::RedactedStderr;
pub use run::{Startup, copy_store, print_config, run};
pub use scratch::Scratch;
pub use signals::install as install_signals;
