//! `omnictl undo | redo | back | checkout N`: move the head; nothing is ever deleted.

use omni_proto::{Move, MoveOp, MoveOutcome, SessionRef};

use super::Ctx;
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;

/// Asks the daemon for a move.
pub async fn request(
    ctx: &mut Ctx,
    session: SessionRef,
    op: MoveOp,
) -> Result<MoveOutcome, CtlError> {
    ctx.ask(Move { session, op }).await
}

pub async fn run(ctx: &mut Ctx, session: &SessionArg, op: MoveOp) -> Result<(), CtlError> {
    match request(ctx, session.to_ref(), op).await {
        Ok(outcome) => {
            if ctx.json {
                output::json(&outcome);
            } else {
                let what = match op {
                    MoveOp::Undo => {
                        "undo: the answer is out of the context (`omnictl redo` brings it back)"
                    }
                    MoveOp::Redo => "redo: the last undo or back is taken back",
                    MoveOp::Back => {
                        "back: the last round is out of the context (`omnictl redo` brings it back)"
                    }
                    MoveOp::Checkout { .. } => "checkout: continuing from the chosen node",
                };
                output::line(what);
                output::line(&format!("head: {}", outcome.head_summary));
            }
            Ok(())
        }
        Err(error) => Err(error),
    }
}
