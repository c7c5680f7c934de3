//! `omnictl branches`: every leaf, with its length and last line; `*` marks the head's.

use omni_proto::{BranchList, Reply, Request};

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
    output::print(&render(&list, &Style::stdout()));
    Ok(())
}

/// The list as text: `*` and bold mark the head's branch; each says where it forks.
pub fn render(list: &BranchList, style: &Style) -> String {
    let mut out = String::new();
    if list.branches.is_empty() {
        out.push_str(&style.dim("(no turns yet)"));
        out.push('\n');
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
        let forks = match branch.forks_at {
            Some(0) => " · forks at the start".to_string(),
            Some(node) => format!(" · forks at #{node}"),
            None => String::new(),
        };
        let text = format!(
            "{marker} #{:<5} {:>4} turns  {:<5}  {}",
            branch.leaf,
            branch.length,
            branch.role.as_str(),
            branch.last_line,
        );
        let text = if branch.contains_head {
            style.bold(&text)
        } else {
            text
        };
        out.push_str(&format!("{text}{}\n", style.dim(&format!("{head}{forks}"))));
    }
    out
}
