//! What a request over HTTP carries (path, query, JSON body) and the functions that turn
//! it into the protocol's requests, for the routes whose translation is more than a line.

use std::collections::HashMap;

use omni_proto::{
    Call, Compact, ErrorKind, ErrorReply, Export, ExportFormat, History, HistoryPage, HistoryView,
    Import, NewSession, RecoveryAction, Request, SearchQuery, SendPrompt, SessionRef, ToolResult,
    UsageGrouping, UsageQuery,
};
use serde_json::Value;

use super::bodies::{CompactBody, ImportBody, NewSessionBody, SendBody, ToolResultBody};
use super::queries::{ExportQuery, HistoryQuery, SearchParams, UsageParams};

/// What a route's request carries, taken from the path, the query and the body.
pub struct Input {
    /// `{id}` in the path: a session id, a unique prefix, or `current`.
    pub session: Option<SessionRef>,
    /// `{eid}` in the path: a recorded error's id.
    pub error_id: Option<String>,
    /// The query parameters.
    pub query: HashMap<String, String>,
    /// The JSON body (`null` when there is none).
    pub body: Value,
}

/// An invalid-request error.
pub fn invalid(message: impl Into<String>) -> ErrorReply {
    ErrorReply::new(ErrorKind::InvalidRequest, message)
}

impl Input {
    /// The session `{id}` names (the current one if the path has none).
    pub fn session(&self) -> SessionRef {
        self.session.clone().unwrap_or(SessionRef::Current)
    }
}

/// `?NAME=` as a time: a date, a date and time, `today`, `yesterday`, an age (`7d`) or
/// milliseconds, as `--since` takes them.
pub fn time(name: &str, text: Option<&str>) -> Result<Option<u64>, ErrorReply> {
    let Some(text) = text else {
        return Ok(None);
    };
    omni_proto::parse_since(text, crate::time::now_ms())
        .map(Some)
        .map_err(|e| invalid(format!("?{name}=: {e}")))
}

/// `current` names the current session; anything else is an id or a unique prefix.
pub fn session_ref(id: &str) -> SessionRef {
    match id {
        "current" => SessionRef::Current,
        id => SessionRef::Id(id.to_string()),
    }
}

/// `GET /v1/usage`: `?by=session|model|day`, `?since=`, `?session=`.
pub fn usage(_: &Input, query: UsageParams) -> Result<UsageQuery, ErrorReply> {
    let by = match query.by.as_deref() {
        None | Some("session") => UsageGrouping::Session,
        Some("model") => UsageGrouping::Model,
        Some("day") => UsageGrouping::Day,
        Some(other) => {
            return Err(invalid(format!(
                "?by= takes session, model or day, not {other:?}"
            )));
        }
    };
    Ok(UsageQuery {
        since_ms: time("since", query.since.as_deref())?,
        by,
        session: query.session.as_deref().map(session_ref),
    })
}

/// What `GET .../history` asks: the whole transcript, or a page of it.
pub enum HistoryAsked {
    /// Every entry.
    Whole(History),
    /// With `?limit=`: the latest entries before `?before=`.
    Page(HistoryPage),
}

impl From<HistoryAsked> for Request {
    fn from(asked: HistoryAsked) -> Self {
        match asked {
            HistoryAsked::Whole(whole) => whole.into(),
            HistoryAsked::Page(page) => page.into(),
        }
    }
}

impl Call for HistoryAsked {
    type Reply = HistoryView;
}

/// `GET .../history`: the whole transcript, or with `?limit=` a page of it.
pub fn history(input: &Input, query: HistoryQuery) -> Result<HistoryAsked, ErrorReply> {
    let HistoryQuery {
        active: active_only,
        limit,
        before,
    } = query;
    Ok(match limit {
        Some(limit) => HistoryAsked::Page(HistoryPage {
            session: input.session(),
            active_only,
            before,
            limit,
        }),
        None if before.is_some() => return Err(invalid("?before= needs ?limit=")),
        None => HistoryAsked::Whole(History {
            session: input.session(),
            active_only,
        }),
    })
}

/// `POST /v1/sessions`: tools, model, fallback chain and system instruction, each
/// optional.
pub fn new_session(_: &Input, body: NewSessionBody) -> Result<NewSession, ErrorReply> {
    let tools_json = body
        .tools
        .map(|tools| Value::Array(tools.into_iter().map(Value::Object).collect()).to_string());
    Ok(NewSession {
        tools_json,
        model: body.model,
        fallback: body.fallback.unwrap_or_default(),
        system: body.system,
    })
}

/// `POST .../send`: the prompt, refused when empty here at the edge, before a streamed
/// answer has sent its `200` (the session would refuse it too, but only as an event).
pub fn send(input: &Input, body: SendBody) -> Result<SendPrompt, ErrorReply> {
    if body.prompt.trim().is_empty() {
        return Err(invalid("the prompt is empty; nothing was sent"));
    }
    Ok(SendPrompt {
        session: input.session(),
        prompt: body.prompt,
        replace: body.replace.unwrap_or(false),
    })
}

/// `POST .../tool-results`.
pub fn tool_result(input: &Input, body: ToolResultBody) -> Result<ToolResult, ErrorReply> {
    Ok(ToolResult {
        session: input.session(),
        call_id: body.call_id,
        name: body.name,
        response_json: Value::Object(body.response).to_string(),
    })
}

/// The recovery actions as the API names them: `compact`, `deep`, ... in menu order.
pub fn recovery_actions() -> Vec<&'static str> {
    RecoveryAction::ALL
        .iter()
        .map(|action| action.flag().trim_start_matches('-'))
        .collect()
}

/// `POST .../compact`: `keep` and `instructions`, both optional (but not empty).
pub fn compact(input: &Input, body: CompactBody) -> Result<Compact, ErrorReply> {
    if body
        .instructions
        .as_deref()
        .is_some_and(|t| t.trim().is_empty())
    {
        return Err(invalid(
            "\"instructions\" is empty; leave it out to use Omni's own",
        ));
    }
    Ok(Compact {
        session: input.session(),
        keep: body.keep,
        instructions: body.instructions,
    })
}

/// `GET /v1/sessions/{id}/export?format=&all=`.
pub fn export(input: &Input, query: ExportQuery) -> Result<Export, ErrorReply> {
    let name = query.format.as_deref().unwrap_or("md");
    let format = ExportFormat::parse(name)
        .ok_or_else(|| invalid(format!("unknown format {name:?}; one of md, json, jsonl")))?;
    Ok(Export {
        session: input.session(),
        format,
        all: query.all,
    })
}

/// `POST /v1/import`: an exported session and the file it came from.
pub fn import(_: &Input, body: ImportBody) -> Result<Import, ErrorReply> {
    let data = serde_json::to_vec(&body.session).map_err(|e| invalid(e.to_string()))?;
    Ok(Import {
        upload: None,
        data,
        tool: "omni".into(),
        file: body.file.unwrap_or_else(|| "http".into()),
    })
}

/// `GET /v1/search?q=...&session=&role=&since=&limit=&archived=`.
pub fn search(_: &Input, query: SearchParams) -> Result<SearchQuery, ErrorReply> {
    let text = query
        .q
        .filter(|q| !q.trim().is_empty())
        .ok_or_else(|| invalid("?q= needs some words to look for"))?;
    let role = match query.role.as_deref() {
        None => None,
        Some("user") => Some(omni_proto::Role::User),
        Some("model") => Some(omni_proto::Role::Model),
        Some("tool") => Some(omni_proto::Role::Tool),
        Some(other) => {
            return Err(invalid(format!(
                "?role= takes user, model or tool, not {other:?}"
            )));
        }
    };
    Ok(SearchQuery {
        text,
        session: query.session.as_deref().map(session_ref),
        role,
        since_ms: time("since", query.since.as_deref())?,
        limit: query.limit.unwrap_or(DEFAULT_SEARCH_LIMIT),
        archived: query.archived,
    })
}

/// How many hits a search returns unless told.
pub const DEFAULT_SEARCH_LIMIT: u32 = 20;
