//! The messages a client and the daemon exchange.
//!
//! The handshake, and the frame a request travels in (the requests themselves are in
//! `requests.rs`). Variants are encoded by index: append new variants at the end, never
//! reorder.

use serde::{Deserialize, Serialize};

use crate::requests::Request;

/// First frame a client sends. Its layout is frozen across protocol versions so that a
/// mismatch is always reported clearly instead of failing to decode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The client's [`crate::limits::PROTOCOL_VERSION`].
    pub protocol_version: u32,
    /// Free-form client name and version, for the daemon's logs.
    pub client: String,
}

/// The daemon's answer to [`Hello`]. Frozen like [`Hello`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum HelloReply {
    /// The daemon speaks the client's protocol; requests may follow.
    Welcome {
        /// The daemon's protocol version (equal to the client's).
        protocol_version: u32,
        /// The daemon's package version.
        daemon_version: String,
    },
    /// The daemon cannot talk to this client; the connection closes after this frame.
    Rejected {
        /// The daemon's protocol version.
        protocol_version: u32,
        /// Why, and what to do about it.
        message: String,
    },
}

/// Which session a request is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SessionRef {
    /// The most recently used session.
    Current,
    /// A session id, a unique prefix of one, or a unique prefix of its title.
    Id(String),
}

/// A request and the id its events and reply will carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestFrame {
    /// Chosen by the client; echoed in every [`ResponseFrame`] for this request.
    pub id: u64,
    /// What the client asks for.
    pub request: Request,
}
