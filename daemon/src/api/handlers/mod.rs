//! Request handlers: one file per request kind, each the request struct's `Handle`, from
//! the request to its reply type.
//! Reads go straight to the store (they never wait behind a streaming answer); changes go
//! through the session's actor.

// Every file here is a module (a new handler needs no line here).
automod::dir!(pub(crate) "src/api/handlers");
