//! `omnictl sessions`: a page of sessions, last active first (`*` marks the current one):
//! id, last activity, origin, model, turns and title; `--before` pages on.

use omni_proto::{
    Before, OriginKind, SessionPage, SessionQuery, SessionSummary, Shown, parse_since,
};
use serde_json::json;

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::render::{self, style::Style, width};

/// The query the command line asks for; times are read here, in the user's time zone.
pub fn query(args: &ListArgs) -> Result<SessionQuery, CtlError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let time = |flag: &str, text: &Option<String>| {
        text.as_deref()
            .map(|text| {
                parse_since(text, now).map_err(|_| {
                    CtlError::usage(format!(
                        "{flag} {text:?} is not a time: give a date (2026-11-01), today, \
                         yesterday, an age (7d, 12h) or ms since the epoch"
                    ))
                })
            })
            .transpose()
    };
    let origin = args
        .origin
        .as_deref()
        .map(|text| OriginKind::parse(text).map_err(CtlError::usage))
        .transpose()?;
    let shown = match (args.archived, args.trash) {
        (_, true) => Shown::Trash,
        (true, false) => Shown::WithArchived,
        (false, false) => Shown::Listed,
    };
    Ok(SessionQuery {
        limit: Some(args.limit),
        before: match args.before.as_deref().and_then(Before::parse_place) {
            Some(place) => Some(place),
            None => time("--before", &args.before)?.map(Before::Time),
        },
        since_ms: time("--since", &args.since)?,
        origin,
        model: args.model.clone(),
        shown,
    })
}

pub async fn run(ctx: &mut Ctx, args: &ListArgs) -> Result<(), CtlError> {
    let query = query(args)?;
    let page: SessionPage = ctx.ask(query).await?;
    if ctx.json {
        output::json(&json!({ "sessions": page.sessions, "next_before": page.next_before }));
        return Ok(());
    }
    let style = Style::stdout();
    if page.sessions.is_empty() {
        let empty = match args.trash {
            true => "the trash is empty",
            false => "no sessions yet; create one with `omnictl new`",
        };
        output::line(&style.dim(empty));
    }
    if !page.sessions.is_empty() {
        output::line(&style.dim(&header()));
    }
    let columns = width::stdout_columns();
    for session in &page.sessions {
        let line = line(session, &style);
        output::line(&columns.map_or(line.clone(), |columns| width::cut(&line, columns)));
    }
    if let Some(before) = page.next_before {
        output::line(&style.dim(&format!("more: omnictl sessions --before {before}")));
    }
    Ok(())
}

/// The widest origin and model shown; longer ones are cut with `…`.
const ORIGIN_COLUMNS: usize = 24;
const MODEL_COLUMNS: usize = 24;

/// The row naming the columns.
fn header() -> String {
    format!(
        "  {:<8}  {:<20}  {:<ORIGIN_COLUMNS$}  {:<MODEL_COLUMNS$}  {:>5}  TITLE",
        "ID", "LAST ACTIVE", "ORIGIN", "MODEL", "TURNS"
    )
}

/// One session's line: the columns of [`header`], the title last (the line is cut to the
/// terminal's width by the caller).
fn line(session: &SessionSummary, style: &Style) -> String {
    let marker = if session.current { "*" } else { " " };
    let mut title = if session.title.is_empty() {
        style.dim("(empty)")
    } else {
        session.title.clone()
    };
    if session.archived_at_ms.is_some() {
        title = format!("{} {title}", style.dim("[archived]"));
    }
    if session.suspended {
        title = format!("{} {title}", style.error("[suspended]"));
    }
    if let Some(reason) = &session.damaged {
        title = format!("{} {title} ({reason})", style.error("[damaged]"));
    }
    let origin = match &session.origin {
        Some(origin) => origin.clone(),
        None => session.origin_kind.name().to_string(),
    };
    let short: String = session.id.chars().take(8).collect();
    format!(
        "{marker} {short:<8}  {:<20}  {}  {}  {:>5}  {title}",
        render::timestamp(session.updated_at_ms),
        padded(&origin, ORIGIN_COLUMNS),
        padded(&session.model, MODEL_COLUMNS),
        session.nodes
    )
}

/// `text` in exactly `columns` columns: cut with `…` or padded.
fn padded(text: &str, columns: usize) -> String {
    let cut = width::cut(text, columns);
    let pad = columns.saturating_sub(width::visible_width(&cut));
    format!("{cut}{}", " ".repeat(pad))
}

impl super::Run for ListArgs {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self).await
    }
}

/// What `omnictl sessions` shows.
#[derive(Debug, Clone, clap::Args)]
pub struct ListArgs {
    /// At most this many sessions (newest first)
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: u32,
    /// Only sessions last active before this: a time as `--since` takes it, or the
    /// place a previous page printed as its next page (`MS.ID`)
    #[arg(long, value_name = "WHEN")]
    pub before: Option<String>,
    /// Only sessions active since this (2026-11-01, today, yesterday, 7d, 12h, ms)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only sessions of this origin: own (made with omnictl or HTTP), proxy, import
    #[arg(long, value_name = "KIND")]
    pub origin: Option<String>,
    /// Only sessions that ask or were answered by a model whose name contains this
    #[arg(long, value_name = "TEXT")]
    pub model: Option<String>,
    /// Include archived sessions
    #[arg(long, conflicts_with = "trash")]
    pub archived: bool,
    /// List the trash instead (sessions `delete` moved there)
    #[arg(long)]
    pub trash: bool,
}

impl Default for ListArgs {
    /// The first page of the listed sessions (chat's `/sessions`).
    fn default() -> Self {
        Self {
            limit: 50,
            before: None,
            since: None,
            origin: None,
            model: None,
            archived: false,
            trash: false,
        }
    }
}
