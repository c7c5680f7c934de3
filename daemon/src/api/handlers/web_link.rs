//! `omnictl web`: a one-time link that logs a browser into the web app.

use omni_proto::{ErrorReply, Reply};

use crate::api::state::Daemon;
use crate::api::web_keys::LINK_LIFETIME;

/// A new login link; refused when omnid does not serve the web app.
pub fn handle(daemon: &Daemon) -> Result<Reply, ErrorReply> {
    Ok(Reply::WebLink {
        url: daemon.web.link()?,
        expires_in_s: LINK_LIFETIME.as_secs(),
    })
}
