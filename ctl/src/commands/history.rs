//! `omnictl history [--active | --tree]`: the transcript, reverted turns crossed out, or
//! the session drawn as a tree.

use omni_proto::History;

use super::{Ctx, around};
use crate::error::CtlError;
use crate::output;
use crate::render::style::Style;
use crate::render::transcript::{self, Detail};
use crate::render::{pager, tree, width};
use crate::session_arg::SessionArg;

/// How to show the history.
pub struct Shape {
    /// Only the path to the head.
    pub active: bool,
    /// With thought summaries.
    pub thoughts: bool,
    /// As a tree.
    pub tree: bool,
    /// Every entry whole, however long (else a huge one is cut, with a note).
    pub full: bool,
    /// Through a pager when long, on a terminal.
    pub pager: bool,
    /// Only the nodes around this one: (node, how many before and after).
    pub around: Option<(u64, u64)>,
}

async fn run(ctx: &mut Ctx, session: &SessionArg, shape: Shape) -> Result<(), CtlError> {
    let request = History {
        session: session.to_ref(),
        active_only: shape.active,
    };
    let mut view = ctx.ask(request).await?;
    if let Some((node, context)) = shape.around {
        view.entries = around::entries(&view, node, context)?;
    }
    if ctx.json {
        output::json(&view);
    } else if shape.tree {
        let drawn = tree::draw(&view, &Style::stdout(), width::stdout_columns());
        pager::show(&drawn, shape.pager);
    } else {
        let detail = Detail {
            thoughts: shape.thoughts,
            cut: (!shape.full).then_some("omnictl history --full shows every entry whole"),
        };
        let text = transcript::history(&view, &Style::stdout(), detail);
        pager::show(&text, shape.pager);
    }
    Ok(())
}

/// `omnictl history`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub session: SessionArg,
    /// Only what the model will see next (the path to the head)
    #[arg(long)]
    pub active: bool,
    /// Also show the model's thought summaries
    #[arg(long)]
    pub thoughts: bool,
    /// Draw the session as a tree: branches under their fork, why each node is out
    #[arg(long, conflicts_with_all = ["active", "thoughts"])]
    pub tree: bool,
    /// Show every entry whole (a very long one is otherwise cut, with a note)
    #[arg(long)]
    pub full: bool,
    /// Print long output directly instead of through $PAGER
    #[arg(long)]
    pub no_pager: bool,
    /// Show only the nodes around node N (a search hit): its turns before and after
    #[arg(long, value_name = "N", conflicts_with = "tree")]
    pub around: Option<u64>,
    /// With --around: how many nodes before and after it
    #[arg(long, value_name = "N", default_value_t = 3, requires = "around")]
    pub context: u64,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        let shape = Shape {
            active: self.active,
            thoughts: self.thoughts,
            tree: self.tree,
            full: self.full,
            pager: !self.no_pager,
            around: self.around.map(|node| (node, self.context)),
        };
        run(ctx, &self.session, shape).await
    }
}
