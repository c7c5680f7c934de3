//! `omnictl undo | redo | back | checkout N`: move the head; nothing is ever deleted.

use omni_proto::{MoveOp, Reply, Request};

use super::{Ctx, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;

pub async fn run(ctx: &mut Ctx, session: &SessionArg, op: MoveOp) -> Result<(), CtlError> {
    let request = Request::Move {
        session: session.to_ref(),
        op,
    };
    match ctx.ask(request).await? {
        Reply::Moved(outcome) => {
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
        other => Err(unexpected(other)),
    }
}
