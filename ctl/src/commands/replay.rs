//! `omnictl replay ERROR_ID`: send a recorded failing request again; exit 0 if it now
//! succeeds, 1 if it still fails.

use omni_proto::Replay;

use super::Ctx;
use crate::error::CtlError;
use crate::output;

async fn run(ctx: &mut Ctx, error: String) -> Result<(), CtlError> {
    let outcome = ctx.ask(Replay { error }).await?;
    if ctx.json {
        output::json(&outcome);
    } else if outcome.still_fails {
        output::line(&format!(
            "error {} still fails ({}): {}",
            outcome.error,
            outcome.class.as_deref().unwrap_or("unknown"),
            outcome.summary
        ));
    } else {
        output::line(&format!(
            "error {} no longer happens: {}",
            outcome.error, outcome.summary
        ));
    }
    if outcome.still_fails {
        Err(CtlError::failure(format!(
            "the recorded request of error {} still fails",
            outcome.error
        )))
    } else {
        Ok(())
    }
}

/// `omnictl replay`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The error's id (or a unique prefix), from `omnictl logs list`
    #[arg(value_name = "ERROR_ID")]
    pub error: String,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, self.error).await
    }
}
