//! `omnictl compact [--keep N] [--instructions TEXT]`: the model summarises the context up
//! to its last N rounds into a summary node; the covered nodes stay in the tree, and
//! `omnictl undo` right after returns to the full context.

use omni_proto::{Compact, Compacted, SessionRef};

use super::Ctx;
use super::stream::streamed_with;
use crate::error::CtlError;
use crate::output;
use crate::render::context;
use crate::render::live::Live;
use crate::session_arg::SessionArg;

/// What to compact and how.
pub struct Asked {
    /// Rounds kept whole after the summary (`None`: the daemon's default, 2).
    pub keep: Option<u32>,
    /// What the summary should keep in mind.
    pub instructions: Option<String>,
}

/// Asks the daemon to compact `session`, showing its progress (what it covers, the model,
/// retries) as `live` does; returns what the compaction did.
pub async fn request(
    ctx: &mut Ctx,
    session: SessionRef,
    asked: Asked,
    live: Live,
) -> Result<Compacted, CtlError> {
    let request = Compact {
        session,
        keep: asked.keep,
        instructions: asked.instructions,
    };
    streamed_with(ctx, request, live.waiting()).await
}

/// `omnictl compact`.
async fn run(ctx: &mut Ctx, session: &SessionArg, asked: Asked) -> Result<(), CtlError> {
    if asked
        .instructions
        .as_deref()
        .is_some_and(|t| t.trim().is_empty())
    {
        return Err(CtlError::usage(
            "--instructions is empty; leave it out to use Omni's own",
        ));
    }
    let live = Live::new(ctx.json, false);
    let compacted = request(ctx, session.to_ref(), asked, live).await?;
    if ctx.json {
        output::json(&compacted);
    } else {
        output::line(&context::compacted(&compacted, "omnictl undo"));
    }
    Ok(())
}

/// `omnictl compact`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub session: SessionArg,
    /// Rounds (a prompt, its answer and tool calls) kept whole after the summary
    /// [default: 2]
    #[arg(long, value_name = "N")]
    pub keep: Option<u32>,
    /// What the summary should keep in mind (added to Omni's own instructions)
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        let asked = Asked {
            keep: self.keep,
            instructions: self.instructions,
        };
        run(ctx, &self.session, asked).await
    }
}
