//! `omnictl model [-s ID] [REF]`: the model a session asks and its fallbacks, or a switch
//! to another model from the session's next send on.

use omni_proto::{SessionRef, SessionSummary, SetModel, ShowSession};
use serde_json::json;

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

/// Switches the session to `model`, or (without one) asks which it uses; returns its
/// summary either way.
pub async fn request(
    ctx: &mut Ctx,
    session: SessionRef,
    model: Option<String>,
) -> Result<SessionSummary, CtlError> {
    match model {
        Some(model) => ctx.ask(SetModel { session, model }).await,
        None => ctx.ask(ShowSession { session }).await,
    }
}

/// One line: the model and what follows it.
pub fn describe(summary: &SessionSummary) -> String {
    if summary.fallback.is_empty() {
        format!("model: {} (no fallback)", summary.model)
    } else {
        format!(
            "model: {}, then {}",
            summary.model,
            summary.fallback.join(", then ")
        )
    }
}

async fn run(ctx: &mut Ctx, session: &SessionArg, model: Option<String>) -> Result<(), CtlError> {
    let switching = model.is_some();
    let summary = request(ctx, session.to_ref(), model).await?;
    if ctx.json {
        output::json(&json!({
            "session": summary.id,
            "model": summary.model,
            "fallback": summary.fallback,
        }));
    } else if switching {
        output::line(&format!(
            "session {} asks {} from its next send on",
            summary.id, summary.model
        ));
    } else {
        output::line(&describe(&summary));
    }
    Ok(())
}

/// `omnictl model`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub session: SessionArg,
    /// The model to ask from now on: MODEL or PROVIDER/MODEL
    #[arg(value_name = "REF")]
    pub model: Option<String>,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.session, self.model).await
    }
}
