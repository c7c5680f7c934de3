//! `omnictl usage`: stored answers' tokens and cost, per session, model or day.

use omni_proto::{SessionRef, UsageGrouping, UsageQuery};

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::render::{usage, width};

async fn run(
    ctx: &mut Ctx,
    since: Option<&str>,
    by: UsageBy,
    session: Option<String>,
) -> Result<(), CtlError> {
    let since_ms = since.map(parse_since).transpose()?;
    let request = UsageQuery {
        since_ms,
        by: match by {
            UsageBy::Session => UsageGrouping::Session,
            UsageBy::Model => UsageGrouping::Model,
            UsageBy::Day => UsageGrouping::Day,
        },
        session: session.map(SessionRef::Id),
    };
    let report = ctx.ask(request).await?;
    if ctx.json {
        output::json(&report);
        return Ok(());
    }
    output::print(&usage::table(&report, width::stdout_columns()));
    Ok(())
}

/// `--since` as milliseconds since the epoch, or a usage error naming the forms it takes.
pub fn parse_since(text: &str) -> Result<u64, CtlError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    omni_proto::parse_since(text, now).map_err(|e| CtlError::usage(e.to_string()))
}

/// `omnictl usage`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only answers from this time on: a date (2026-11-01), a date and time, `today`,
    /// `yesterday`, or an age (30m, 24h, 7d, 2w)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// One row per session, model or day
    #[arg(long, value_enum, default_value = "session")]
    pub by: UsageBy,
    /// Only this session (an id, a unique prefix) [default: every session]
    #[arg(short = 's', long = "session", value_name = "ID")]
    pub session: Option<String>,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, self.since.as_deref(), self.by, self.session).await
    }
}

/// How `omnictl usage` groups its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UsageBy {
    /// One row per session
    Session,
    /// One row per model (PROVIDER/MODEL)
    Model,
    /// One row per local calendar day
    Day,
}
