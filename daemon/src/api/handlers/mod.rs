//! Request handlers: one file per request kind, each the request struct's `Handle`, from
//! the request to its reply type.
//! Reads go straight to the store (they never wait behind a streaming answer); changes go
//! through the session's actor.

pub(super) mod attach;
pub(super) mod branches;
pub(super) mod cancel;
pub(super) mod compact;
pub(super) mod export;
pub(super) mod history;
pub(super) mod import;
pub(super) mod listing;
pub(super) mod logs;
pub(super) mod moves;
pub(super) mod new_session;
pub(crate) mod purge;
pub(super) mod recover;
pub(super) mod rename;
pub(super) mod replay;
pub(super) mod resume;
pub(super) mod search;
pub(super) mod send;
pub(super) mod session;
pub(super) mod sessions;
pub(super) mod set_model;
pub(super) mod status;
pub(super) mod stream;
pub(super) mod tool_result;
pub(super) mod tree;
pub(super) mod usage;
pub(super) mod web_link;
