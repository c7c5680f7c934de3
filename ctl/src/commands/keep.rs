//! `omnictl rename`, `archive`, `unarchive`, `delete`, `restore`, `purge`: a session's
//! title, where it is kept, and erasing it. Each prints what became of the session.

use omni_proto::{
    Call, Place, PlaceChange, Purge, Purged, Rename, SessionRef, SessionSummary, ShowSession,
};
use serde_json::json;

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

/// Names the session; returns its summary.
pub async fn rename(
    ctx: &mut Ctx,
    session: SessionRef,
    title: String,
) -> Result<SessionSummary, CtlError> {
    summary(ctx, Rename { session, title }).await
}

async fn summary<C: Call<Reply = SessionSummary>>(
    ctx: &mut Ctx,
    request: C,
) -> Result<SessionSummary, CtlError> {
    ctx.ask(request).await
}

async fn run(ctx: &mut Ctx, command: KeepCommand) -> Result<(), CtlError> {
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
        KeepCommand::Purge { session, yes } => return purge(ctx, session, yes).await,
    };
    let request = Place {
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

/// `omnictl purge -s ID [--yes]`: asks at a terminal (naming the session) unless `--yes`.
async fn purge(ctx: &mut Ctx, session: String, yes: bool) -> Result<(), CtlError> {
    let session = SessionRef::Id(session);
    if !yes {
        let found = summary(
            ctx,
            ShowSession {
                session: session.clone(),
            },
        )
        .await?;
        if !confirmed(ctx, &found) {
            return Err(CtlError::usage(
                "nothing was purged: purge erases a session for good; confirm at a terminal, \
                 or pass --yes",
            ));
        }
    }
    let Purged {
        session: id,
        nodes,
        records,
        ..
    } = ctx.ask(Purge { session }).await?;
    if ctx.json {
        output::json(&json!({ "session": id, "nodes": nodes, "records": records }));
    } else {
        output::line(&format!(
            "session {id} is purged ({nodes} nodes, {records} diagnostic records); its bytes \
             leave the data directory's files at omnid's next start"
        ));
    }
    Ok(())
}

/// Whether a person at a terminal said yes to erasing `found`.
fn confirmed(ctx: &Ctx, found: &SessionSummary) -> bool {
    use std::io::IsTerminal;
    if ctx.json || !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return false;
    }
    eprint!(
        "erase session {} (“{}”, {} nodes) for good? Nothing can bring it back. [y/N] ",
        found.id, found.title, found.nodes
    );
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

impl super::Run for KeepCommand {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, self).await
    }
}

/// The commands that name and keep sessions.
#[derive(Debug, clap::Subcommand)]
pub enum KeepCommand {
    /// Name a session (its first prompt no longer sets its title)
    Rename {
        #[command(flatten)]
        session: SessionArg,
        /// The title (several words are joined with spaces)
        #[arg(required = true, value_name = "TITLE")]
        title: Vec<String>,
    },
    /// Hide a session from `sessions` (still found with `sessions --archived`)
    Archive {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Show an archived session in `sessions` again
    Unarchive {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Move a session to the trash (restorable for trash.keep_days, then purged)
    Delete {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Take a session out of the trash
    Restore {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Erase a session for good (asks to confirm): from the store, the proxy's chains and
    /// the diagnostic records; after omnid's next start no byte of it is left on disk
    Purge {
        /// The session to erase (required: purge never means the current one by default)
        #[arg(short = 's', long = "session", value_name = "ID", required = true)]
        session: String,
        /// Do not ask
        #[arg(long)]
        yes: bool,
    },
}
