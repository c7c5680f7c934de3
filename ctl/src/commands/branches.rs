//! `omnictl branches`: every leaf, with its length and last line; `*` marks the head's.

use omni_proto::{Reply, Request};

use super::{Ctx, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;
use crate::render::style::Style;

pub async fn run(ctx: &mut Ctx, session: &SessionArg) -> Result<(), CtlError> {
    let request = Request::Branches {
        session: session.to_ref(),
    };
    let list = match ctx.ask(request).await? {
        Reply::Branches(list) => list,
        other => return Err(unexpected(other)),
    };
    if ctx.json {
        output::json(&list);
        return Ok(());
    }
    let style = Style::stdout();
    if list.branches.is_empty() {
        output::line(&style.dim("(no turns yet)"));
    }
    for branch in &list.branches {
        let marker = if branch.contains_head { "*" } else { " " };
        let head = if branch.leaf == list.head {
            " (head)".to_string()
        } else if branch.contains_head {
            format!(" (head at #{})", list.head)
        } else {
            String::new()
        };
        output::line(&format!(
            "{marker} #{:<5} {:>4} turns  {:<5}  {}{}",
            branch.leaf,
            branch.length,
            branch.role.as_str(),
            branch.last_line,
            style.dim(&head)
        ));
    }
    Ok(())
}
