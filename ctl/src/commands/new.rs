//! `omnictl new`: create a session; print its id.

use omni_proto::{Reply, Request};
use serde_json::json;

use super::{Ctx, unexpected};
use crate::error::CtlError;
use crate::output;

pub async fn run(ctx: &mut Ctx) -> Result<(), CtlError> {
    match ctx.ask(Request::NewSession).await? {
        Reply::SessionCreated { session } => {
            if ctx.json {
                output::json(&json!({ "session": session }));
            } else {
                output::line(&session);
            }
            Ok(())
        }
        other => Err(unexpected(other)),
    }
}
