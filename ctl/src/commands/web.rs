//! `omnictl web [--open]`: a one-time link that logs a browser into the web app omnid
//! serves with `--web-listen`. The link is printed on a line of its own, so a script can
//! take it; it works once and expires unused.

use omni_proto::{LoginLink, WebLink};
use serde_json::json;

use super::Ctx;
use crate::error::CtlError;
use crate::output;

async fn run(ctx: &mut Ctx, open: bool) -> Result<(), CtlError> {
    let LoginLink { url, expires_in_s } = ctx.ask(WebLink).await?;
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

/// `omnictl web`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also open it in the default browser
    #[arg(long)]
    pub open: bool,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, self.open).await
    }
}
