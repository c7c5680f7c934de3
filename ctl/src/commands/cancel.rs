//! `omnictl cancel [-s ID]`: stop a session's answer in flight. The partial answer is kept
//! as an interrupted node, out of the context; the head stays on the prompt.

use omni_proto::{Cancel, Cancelled};
use serde_json::json;

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

async fn run(ctx: &mut Ctx, session: &SessionArg) -> Result<(), CtlError> {
    let cancelled = ctx
        .ask(Cancel {
            session: session.to_ref(),
        })
        .await?;
    if ctx.json {
        // As a JSON value: its keys in order, as `--json` has always printed them.
        output::json(&json!(cancelled));
        return Ok(());
    }
    let Cancelled { turn, kept, .. } = cancelled;
    let kept = match kept {
        Some(node) => format!("the partial answer is kept as node {node}, out of the context"),
        None => "nothing of the answer had arrived".to_string(),
    };
    output::line(&format!(
        "cancelled the answer to node {turn}; {kept}. The head stays on node {turn}."
    ));
    Ok(())
}

/// `omnictl cancel`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub session: SessionArg,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.session).await
    }
}
