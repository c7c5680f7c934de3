//! `omnictl branches`: every leaf, with its length and last line; `*` marks the head's.

use omni_proto::{BranchList, Branches};

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::render::style::Style;
use crate::render::width;
use crate::session_arg::SessionArg;

async fn run(ctx: &mut Ctx, session: &SessionArg) -> Result<(), CtlError> {
    let request = Branches {
        session: session.to_ref(),
    };
    let list = ctx.ask(request).await?;
    if ctx.json {
        output::json(&list);
        return Ok(());
    }
    output::print(&render(&list, &Style::stdout(), width::stdout_columns()));
    Ok(())
}

/// The list as text: `*` and bold mark the head's branch; each says where it forks. On a
/// terminal `columns` wide, each row's last line is cut so that the row fits.
pub fn render(list: &BranchList, style: &Style, columns: Option<usize>) -> String {
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
        let start = format!(
            "{marker} #{:<5} {:>4} turns  {:<5}  ",
            branch.leaf,
            branch.length,
            branch.role.as_str(),
        );
        let end = format!("{head}{forks}");
        let last_line = match columns {
            Some(columns) => {
                let room = columns
                    .saturating_sub(width::visible_width(&start) + width::visible_width(&end));
                width::cut(&branch.last_line, room)
            }
            None => branch.last_line.clone(),
        };
        let text = format!("{start}{last_line}");
        let text = if branch.contains_head {
            style.bold(&text)
        } else {
            text
        };
        let row = format!("{text}{}", style.dim(&end));
        // Too narrow even for the row without its last line: cut the row itself.
        let row = match columns {
            Some(columns) if width::visible_width(&row) > columns => width::cut(&row, columns),
            _ => row,
        };
        out.push_str(&row);
        out.push('\n');
    }
    out
}

/// `omnictl branches`'s arguments.
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
