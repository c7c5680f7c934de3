//! `omnictl rename`, `archive`, `unarchive`, `delete`, `restore`: a session's title and
//! where it is kept. Each prints what became of the session.

use omni_proto::{PlaceChange, Reply, Request, SessionRef, SessionSummary};
use serde_json::json;

use super::{Ctx, unexpected};
use crate::cli_sessions::KeepCommand;
use crate::error::CtlError;
use crate::output;

/// Names the session; returns its summary.
pub async fn rename(
    ctx: &mut Ctx,
    session: SessionRef,
    title: String,
) -> Result<SessionSummary, CtlError> {
    summary(ctx, Request::Rename { session, title }).await
}

async fn summary(ctx: &mut Ctx, request: Request) -> Result<SessionSummary, CtlError> {
    match ctx.ask(request).await? {
        Reply::Session(summary) => Ok(summary),
        other => Err(unexpected(other)),
    }
}

pub async fn run(ctx: &mut Ctx, command: KeepCommand) -> Result<(), CtlError> {
    let (session, change) = match command {
        KeepCommand::Rename { session, title } => {
            let summary = rename(ctx, session.to_ref(), title.join(" ")).await?;
            if ctx.json {
                output::json(&json!({ "session": summary }));
            } else {
                output::line(&format!(
                    "session {} is now titled “{}”",
                    summary.id, summary.title
                ));
            }
            return Ok(());
        }
        KeepCommand::Archive { session } => (session, PlaceChange::Archive),
        KeepCommand::Unarchive { session } => (session, PlaceChange::Unarchive),
        KeepCommand::Delete { session } => (session, PlaceChange::Delete),
        KeepCommand::Restore { session } => (session, PlaceChange::Restore),
    };
    let request = Request::Place {
        session: session.to_ref(),
        change,
    };
    let summary = summary(ctx, request).await?;
    let what = match change {
        PlaceChange::Archive => "is archived: `omnictl sessions --archived` lists it",
        PlaceChange::Unarchive => "is listed again",
        PlaceChange::Delete => {
            "is in the trash: `omnictl restore` takes it back, `omnictl sessions --trash` lists the trash"
        }
        PlaceChange::Restore => "is out of the trash",
    };
    done(ctx, &summary, what)
}

fn done(ctx: &Ctx, summary: &SessionSummary, what: &str) -> Result<(), CtlError> {
    if ctx.json {
        output::json(&json!({ "session": summary }));
    } else {
        let title = if summary.title.is_empty() {
            String::new()
        } else {
            format!(" (“{}”)", summary.title)
        };
        output::line(&format!("session {}{title} {what}", summary.id));
    }
    Ok(())
}
