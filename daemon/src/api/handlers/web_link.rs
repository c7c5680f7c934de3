//! `omnictl web`: a one-time link that logs a browser into the web app.

use omni_proto::{ErrorReply, LoginLink, WebLink};

use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::web_keys::LINK_LIFETIME;

/// A new login link; refused when omnid does not serve the web app.
impl Handle for WebLink {
    async fn handle(self, daemon: &Daemon, _: &mut Responder<'_>) -> Result<LoginLink, ErrorReply> {
        Ok(LoginLink {
            url: daemon.web.link()?,
            expires_in_s: LINK_LIFETIME.as_secs(),
        })
    }
}
