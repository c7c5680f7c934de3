//! `omnictl sessions`: all sessions, newest first; `*` marks the current one.

use omni_proto::{Reply, Request};
use serde_json::json;

use super::{Ctx, unexpected};
use crate::error::CtlError;
use crate::output;
use crate::render::{self, style::Style};

pub async fn run(ctx: &mut Ctx) -> Result<(), CtlError> {
    let sessions = match ctx.ask(Request::Sessions).await? {
        Reply::Sessions(sessions) => sessions,
        other => return Err(unexpected(other)),
    };
    if ctx.json {
        output::json(&json!({ "sessions": sessions }));
        return Ok(());
    }
    let style = Style::stdout();
    if sessions.is_empty() {
        output::line(&style.dim("no sessions yet; create one with `omnictl new`"));
    }
    for session in &sessions {
        let marker = if session.current { "*" } else { " " };
        let mut title = if session.title.is_empty() {
            style.dim("(empty)")
        } else {
            session.title.clone()
        };
        if let Some(origin) = &session.origin {
            title = format!("{} {title}", style.dim(&format!("[{origin}]")));
        }
        if session.suspended {
            title = format!("{} {title}", style.error("[suspended]"));
        }
        if let Some(reason) = &session.damaged {
            title = format!("{} {title} ({reason})", style.error("[damaged]"));
        }
        output::line(&format!(
            "{marker} {}  {}  {:>4} turns  {title}",
            session.id,
            render::timestamp(session.created_at_ms),
            session.nodes
        ));
    }
    Ok(())
}
