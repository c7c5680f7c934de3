//! `omnictl search QUERY`: ranked hits across every session and branch, each with its
//! session's title, the node, a snippet with the matches in bold, and whether the node is
//! reverted (and why).

use omni_proto::{SearchHit, SearchQuery, SearchResults, SessionRef};

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::render::style::Style;
use crate::render::timestamp;

/// What the user asked.
pub struct Asked {
    pub words: String,
    pub session: Option<String>,
    pub role: Option<SearchRole>,
    pub since: Option<String>,
    pub limit: u32,
    pub archived: bool,
}

async fn run(ctx: &mut Ctx, asked: Asked) -> Result<(), CtlError> {
    let results = search(ctx, asked).await?;
    if ctx.json {
        output::json(&results);
    } else {
        output::print(&render(&results, &Style::stdout()));
    }
    Ok(())
}

/// Asks the daemon.
pub async fn search(ctx: &mut Ctx, asked: Asked) -> Result<SearchResults, CtlError> {
    let since_ms = match &asked.since {
        Some(since) => Some(
            omni_proto::parse_since(since, now_ms())
                .map_err(|e| CtlError::usage(format!("--since: {e}")))?,
        ),
        None => None,
    };
    let query = SearchQuery {
        text: asked.words,
        session: asked.session.map(SessionRef::Id),
        role: asked.role.map(|role| match role {
            SearchRole::User => omni_proto::Role::User,
            SearchRole::Model => omni_proto::Role::Model,
            SearchRole::Tool => omni_proto::Role::Tool,
        }),
        since_ms,
        limit: asked.limit,
        archived: asked.archived,
    };
    ctx.ask(query).await
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The hits as text, best first.
pub fn render(results: &SearchResults, style: &Style) -> String {
    let mut out = String::new();
    if !results.complete {
        out.push_str(&style.dim(
            "(the search index is still being built from the store: some hits may be missing)\n",
        ));
    }
    if results.hits.is_empty() {
        out.push_str("no matches\n");
        return out;
    }
    for hit in &results.hits {
        out.push_str(&heading(hit, style));
        out.push('\n');
        out.push_str("    ");
        out.push_str(&highlighted(hit, style).replace('\n', " "));
        out.push('\n');
    }
    out
}

/// `title · session 1a2b3c4d · node 7 · model · 2026-11-22T10:00:00Z [reverted: undone]`.
fn heading(hit: &SearchHit, style: &Style) -> String {
    let title = if hit.title.is_empty() {
        "(untitled)"
    } else {
        &hit.title
    };
    let short: String = hit.session.chars().take(8).collect();
    let mut line = format!(
        "{} · session {short} · node {} · {} · {}",
        style.bold(title),
        hit.node,
        style.role(hit.role),
        timestamp(hit.created_at_ms)
    );
    if let Some(why) = hit.why_reverted {
        line.push_str(&style.dim(&format!(" [reverted: {}]", why.as_str())));
    } else if hit.reverted {
        line.push_str(&style.dim(" [reverted]"));
    }
    line
}

/// The snippet with its matches in bold (ranges that are not on character boundaries are
/// shown plain).
fn highlighted(hit: &SearchHit, style: &Style) -> String {
    let text = &hit.snippet;
    let mut out = String::new();
    let mut at = 0usize;
    for range in &hit.highlights {
        let (start, end) = (range.start as usize, range.end as usize);
        let (Some(before), Some(matched)) = (text.get(at..start), text.get(start..end)) else {
            continue;
        };
        out.push_str(before);
        out.push_str(&style.bold(matched));
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    out
}

/// `omnictl search`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The words; every word must match ("a phrase", a OR b, -word work too)
    #[arg(required = true, value_name = "QUERY")]
    pub query: Vec<String>,
    /// Only this session's nodes (an id or a unique prefix)
    #[arg(short = 's', long = "session", value_name = "ID")]
    pub session: Option<String>,
    /// Only nodes of this role
    #[arg(long, value_enum)]
    pub role: Option<SearchRole>,
    /// Only nodes made since: a date, today, yesterday, an age (7d, 3h) or ms since the epoch
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// At most this many hits (1 to 1000)
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: u32,
    /// Also search archived sessions
    #[arg(long)]
    pub archived: bool,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        let asked = Asked {
            words: self.query.join(" "),
            session: self.session,
            role: self.role,
            since: self.since,
            limit: self.limit,
            archived: self.archived,
        };
        run(ctx, asked).await
    }
}

/// Whose nodes a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchRole {
    /// The user's prompts.
    User,
    /// The model's answers.
    Model,
    /// Function results.
    Tool,
}
