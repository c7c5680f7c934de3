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

    /// `?session=`.
    pub fn query_session(&self) -> Option<SessionRef> {
        self.query.get("session").map(|id| session_ref(id))
    }

    /// `?since=`: a date, a date and time, `today`, `yesterday`, an age (`7d`) or
    /// milliseconds, as `--since` takes them.
    pub fn since(&self) -> Result<Option<u64>, ErrorReply> {
        let Some(text) = self.query.get("since") else {
            return Ok(None);
        };
        omni_proto::parse_since(text, crate::time::now_ms())
            .map(Some)
            .map_err(|e| invalid(format!("?since=: {e}")))
    }

    /// A whole-number query parameter, if given.
    pub fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, ErrorReply> {
        self.query
            .get(name)
            .map(|text| {
                text.parse::<T>()
                    .map_err(|_| invalid(format!("?{name}= takes a number, not {text:?}")))
            })
            .transpose()
    }

    /// A true/false query parameter.
    pub fn flag(&self, name: &str) -> Result<bool, ErrorReply> {
        match self.query.get(name).map(String::as_str) {
            None | Some("false") | Some("0") => Ok(false),
            Some("true") | Some("1") | Some("") => Ok(true),
            Some(other) => Err(invalid(format!(
                "?{name}= takes true or false, not {other:?}"
            ))),
        }
    }
}

/// `current` names the current session; anything else is an id or a unique prefix.
pub fn session_ref(id: &str) -> SessionRef {
    match id {
        "current" => SessionRef::Current,
        id => SessionRef::Id(id.to_string()),
    }
}

/// `GET /v1/usage`: `?by=session|model|day`, `?since=`, `?session=`.
pub fn usage(input: &Input) -> Result<UsageQuery, ErrorReply> {
    let by = match input.query.get("by").map(String::as_str) {
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
        since_ms: input.since()?,
        by,
        session: input.query_session(),
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
pub fn history(input: &Input) -> Result<HistoryAsked, ErrorReply> {
    let active_only = input.flag("active")?;
    let before = input.number::<u64>("before")?;
    Ok(match input.number::<u32>("limit")? {
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
        replace: body.replace,
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
pub fn export(input: &Input) -> Result<Export, ErrorReply> {
    let name = input.query.get("format").map_or("md", String::as_str);
    let format = ExportFormat::parse(name)
        .ok_or_else(|| invalid(format!("unknown format {name:?}; one of md, json, jsonl")))?;
    Ok(Export {
        session: input.session(),
        format,
        all: input.flag("all")?,
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
pub fn search(input: &Input) -> Result<SearchQuery, ErrorReply> {
    let text = input
        .query
        .get("q")
        .filter(|q| !q.trim().is_empty())
        .ok_or_else(|| invalid("?q= needs some words to look for"))?
        .clone();
    let role = match input.query.get("role").map(String::as_str) {
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
    let limit = input
        .number::<u32>("limit")?
        .unwrap_or(DEFAULT_SEARCH_LIMIT);
    Ok(SearchQuery {
        text,
        session: input.query_session(),
        role,
        since_ms: input.since()?,
        limit,
        archived: input.flag("archived")?,
    })
}

/// How many hits a search returns unless told.
pub const DEFAULT_SEARCH_LIMIT: u32 = 20;
