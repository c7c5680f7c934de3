//! The messages a client and the daemon exchange.
//!
//! The handshake, and how a request names its session (the requests themselves, and
//! the frame they travel in, are in `requests.rs`). Variants are encoded by index: append
//! new variants at the end, never reorder.

use serde::{Deserialize, Serialize};

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
