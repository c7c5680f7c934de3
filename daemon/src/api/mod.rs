//! The request set: every request a client can make, handled once. The socket edge
//! (`server/`, bincode frames) and the HTTP edge (`http/`, JSON) both decode into
//! [`omni_proto::Request`], call [`dispatch`], and encode what comes back.

mod convert;
mod dispatch;
mod handlers;
pub mod responder;
mod reverts;
pub mod state;
pub mod throttle;
pub mod trash;
pub mod uploads;
mod views;
pub mod web_keys;

pub use dispatch::dispatch;
pub use handlers::purge::finish_unfinished as finish_unfinished_purges;
pub use responder::Responder;
pub use state::Daemon;
