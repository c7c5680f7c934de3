//! `omnictl history [--active | --tree]`: the transcript, reverted turns crossed out, or
//! the session drawn as a tree.

use omni_proto::{Reply, Request};

use super::{Ctx, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;
use crate::render::style::Style;
use crate::render::transcript::{self, Detail};
use crate::render::{pager, tree};

/// How to show the history.
pub struct Shape {
    /// Only the path to the head.
    pub active: bool,
    /// With thought summaries.
    pub thoughts: bool,
    /// As a tree.
    pub tree: bool,
    /// Through a pager when long, on a terminal.
    pub pager: bool,
}

pub async fn run(ctx: &mut Ctx, session: &SessionArg, shape: Shape) -> Result<(), CtlError> {
    let request = Request::History {
        session: session.to_ref(),
        active_only: shape.active,
    };
    match ctx.ask(request).await? {
        Reply::History(view) => {
            if ctx.json {
                output::json(&view);
            } else if shape.tree {
                pager::show(&tree::draw(&view, &Style::stdout()), shape.pager);
            } else {
                let detail = Detail {
                    thoughts: shape.thoughts,
                };
                let text = transcript::history(&view, &Style::stdout(), detail);
                pager::show(&text, shape.pager);
            }
            Ok(())
        }
        other => Err(unexpected(other)),
    }
}
