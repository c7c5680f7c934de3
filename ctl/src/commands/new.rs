//! `omnictl new [--tools FILE]`: create a session; print its id.

use std::path::Path;

use omni_proto::{Reply, Request};
use serde_json::json;

use super::{Ctx, unexpected};
use crate::error::CtlError;
use crate::output;

pub async fn run(ctx: &mut Ctx, tools: Option<&Path>) -> Result<(), CtlError> {
    let tools_json = tools
        .map(|path| {
            std::fs::read_to_string(path).map_err(|e| {
                CtlError::usage(format!(
                    "cannot read the tools file {}: {e}",
                    path.display()
                ))
            })
        })
        .transpose()?;
    match ctx.ask(Request::NewSession { tools_json }).await? {
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
