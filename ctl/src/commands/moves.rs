//! `omnictl undo | redo | back | checkout N`: move the head; nothing is ever deleted.

use omni_proto::{Move, MoveOp, MoveOutcome, SessionRef};

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

/// Asks the daemon for a move.
pub async fn request(
    ctx: &mut Ctx,
    session: SessionRef,
    op: MoveOp,
) -> Result<MoveOutcome, CtlError> {
    ctx.ask(Move { session, op }).await
}

async fn run(ctx: &mut Ctx, session: &SessionArg, op: MoveOp) -> Result<(), CtlError> {
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

/// `omnictl undo`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Undo {
    #[command(flatten)]
    pub session: SessionArg,
}

impl super::Run for Undo {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.session, MoveOp::Undo).await
    }
}

/// `omnictl redo`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Redo {
    #[command(flatten)]
    pub session: SessionArg,
}

impl super::Run for Redo {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.session, MoveOp::Redo).await
    }
}

/// `omnictl back`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Back {
    #[command(flatten)]
    pub session: SessionArg,
}

impl super::Run for Back {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.session, MoveOp::Back).await
    }
}

/// `omnictl checkout`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Checkout {
    #[command(flatten)]
    pub session: SessionArg,
    /// The node to continue from, as listings print it (`12` or `#12`)
    #[arg(value_name = "N", value_parser = node_number)]
    pub node: u64,
}

impl super::Run for Checkout {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.session, MoveOp::Checkout { node: self.node }).await
    }
}

/// A node number as every listing prints it: `12` or `#12`.
fn node_number(text: &str) -> Result<u64, String> {
    let digits = text.trim().strip_prefix('#').unwrap_or(text.trim());
    digits
        .parse()
        .map_err(|_| format!("'{text}' is not a node number (such as 12 or #12)"))
}

#[cfg(test)]
mod tests {
    use super::node_number;

    #[test]
    fn node_numbers_are_read_as_listings_print_them() {
        assert_eq!(node_number("12"), Ok(12));
        assert_eq!(node_number("#12"), Ok(12));
        assert!(node_number("#").is_err());
        assert!(node_number("twelve").is_err());
    }
}
