//! `omnictl history [--active]`: the transcript, reverted turns crossed out.

use omni_proto::{Reply, Request};

use super::{Ctx, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;
use crate::render::style::Style;
use crate::render::transcript::{self, Detail};

pub async fn run(
    ctx: &mut Ctx,
    session: &SessionArg,
    active: bool,
    thoughts: bool,
) -> Result<(), CtlError> {
    let request = Request::History {
        session: session.to_ref(),
        active_only: active,
    };
    match ctx.ask(request).await? {
        Reply::History(view) => {
            if ctx.json {
                output::json(&view);
            } else {
                output::print(&transcript::history(
                    &view,
                    &Style::stdout(),
                    Detail { thoughts },
                ));
            }
            Ok(())
        }
        other => Err(unexpected(other)),
    }
}
