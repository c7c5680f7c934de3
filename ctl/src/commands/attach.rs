//! `omnictl attach [-s ID]`: follow a session live (another client's answers as they
//! stream, retries, moves, recoveries) until Ctrl-C, which exits 130.

use omni_proto::Attach;

use super::Ctx;
use crate::error::{CtlError, exit};
use crate::render::live::Live;
use crate::session_arg::SessionArg;

async fn run(ctx: &mut Ctx, session: &SessionArg) -> Result<(), CtlError> {
    let mut live = Live::new(ctx.json, true);
    let request = Attach {
        session: session.to_ref(),
    };
    let result = tokio::select! {
        result = ctx.call(request, |event| live.show(event)) => result,
        _ = tokio::signal::ctrl_c() => Err(CtlError {
            code: exit::INTERRUPTED,
            kind: None,
            message: "stopped following the session".into(),
        }),
    };
    live.end_line();
    // Following never ends in a reply (`Detached` has no value).
    match result? {}
}

/// `omnictl attach`'s arguments.
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
