//! `omnictl history [--active | --tree]`: the transcript, reverted turns crossed out, or
//! the session drawn as a tree.

use omni_proto::History;

use super::{Ctx, around};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;
use crate::render::style::Style;
use crate::render::transcript::{self, Detail};
use crate::render::{pager, tree, width};

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

pub async fn run(ctx: &mut Ctx, session: &SessionArg, shape: Shape) -> Result<(), CtlError> {
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
