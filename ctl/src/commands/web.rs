//! `omnictl web [--open]`: a one-time link that logs a browser into the web app omnid
//! serves with `--web-listen`. The link is printed on a line of its own, so a script can
//! take it; it works once and expires unused.

use omni_proto::{Reply, Request};
use serde_json::json;

use super::{Ctx, unexpected};
use crate::error::CtlError;
use crate::output;

pub async fn run(ctx: &mut Ctx, open: bool) -> Result<(), CtlError> {
    let (url, expires_in_s) = match ctx.ask(Request::WebLink).await? {
        Reply::WebLink { url, expires_in_s } => (url, expires_in_s),
        other => return Err(unexpected(other)),
    };
    if ctx.json {
        output::json(&json!({ "url": url, "expires_in_s": expires_in_s }));
    } else {
        output::line(&url);
        eprintln!(
            "open it in a browser on this machine within {} minutes; it logs in once",
            expires_in_s.div_ceil(60)
        );
    }
    if open {
        open::that_detached(&url).map_err(|error| {
            CtlError::failure(format!(
                "cannot open a browser ({error}); open the link above by hand"
            ))
        })?;
    }
    Ok(())
}
