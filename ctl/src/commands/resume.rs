//! `omnictl resume [ID]`: lift a suspension after repeated failed sends.

use omni_proto::Resume;

use super::Ctx;
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;

pub async fn run(ctx: &mut Ctx, session: &SessionArg) -> Result<(), CtlError> {
    let request = Resume {
        session: session.to_ref(),
    };
    let resumed = ctx.ask(request).await?;
    let session = &resumed.session;
    if ctx.json {
        output::json(&resumed);
    } else if resumed.was_suspended {
        output::line(&format!(
            "session {session} resumed; sends are accepted again"
        ));
    } else {
        output::line(&format!(
            "session {session} was not suspended; nothing to do"
        ));
    }
    Ok(())
}
