//! `omnictl resume [ID]`: lift a suspension after repeated failed sends.

use omni_proto::{Reply, Request};
use serde_json::json;

use super::{Ctx, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;

pub async fn run(ctx: &mut Ctx, session: &SessionArg) -> Result<(), CtlError> {
    let request = Request::Resume {
        session: session.to_ref(),
    };
    match ctx.ask(request).await? {
        Reply::Resumed {
            session,
            was_suspended,
        } => {
            if ctx.json {
                output::json(&json!({ "session": session, "was_suspended": was_suspended }));
            } else if was_suspended {
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
        other => Err(unexpected(other)),
    }
}
