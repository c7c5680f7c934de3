//! `omnictl usage`: stored answers' tokens and cost, per session, model or day.

use omni_proto::{SessionRef, UsageGrouping, UsageQuery};

use super::Ctx;
use crate::cli::UsageBy;
use crate::error::CtlError;
use crate::output;
use crate::render::{usage, width};

pub async fn run(
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
