//! `omnictl tool-result [--id CALL_ID] NAME JSON`: submit one function result. With the
//! last pending one, the results are sent and the continuation streams here.

use std::io::Read;

use omni_proto::{ToolResult, ToolResultOutcome, ToolResultStored};
use serde_json::json;

use super::Ctx;
use super::stream::{finish_answer, streamed};
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

async fn run(
    ctx: &mut Ctx,
    session: &SessionArg,
    call_id: Option<String>,
    name: String,
    json_arg: &str,
) -> Result<(), CtlError> {
    let response_json = if json_arg == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| CtlError::usage(format!("cannot read the result from stdin: {e}")))?;
        text
    } else {
        json_arg.to_string()
    };
    let request = ToolResult {
        session: session.to_ref(),
        call_id,
        name: name.clone(),
        response_json,
    };
    match streamed(ctx, request).await? {
        ToolResultOutcome::Stored(ToolResultStored { session, calls }) => {
            let waiting: Vec<String> = calls
                .iter()
                .filter(|c| !c.answered)
                .map(|c| match &c.id {
                    Some(id) => format!("{} (id {id})", c.name),
                    None => c.name.clone(),
                })
                .collect();
            if ctx.json {
                output::json(&json!({ "session": session, "stored": name, "calls": calls }));
            } else {
                output::line(&format!(
                    "stored the result of {name}; still waiting for: {}",
                    waiting.join(", ")
                ));
            }
            Ok(())
        }
        ToolResultOutcome::Answered(answer) => {
            finish_answer(ctx, &answer);
            Ok(())
        }
    }
}

/// `omnictl tool-result`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub session: SessionArg,
    /// The call's id, to pick one of several calls of the same function
    #[arg(long = "id", value_name = "CALL_ID")]
    pub call_id: Option<String>,
    /// The function's name
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The result as JSON (an object such as '{"output": 21}', or any value)
    #[arg(value_name = "JSON")]
    pub result: String,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.session, self.call_id, self.name, &self.result).await
    }
}
