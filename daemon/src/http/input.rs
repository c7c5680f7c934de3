//! What a request over HTTP carries (path, query, JSON body) and the functions that turn
//! it into the protocol's requests, for the routes whose translation is more than a line.

use std::collections::HashMap;

use omni_proto::{
    Compact, ErrorKind, ErrorReply, Export, ExportFormat, History, HistoryPage, Import, Move,
    MoveOp, NewSession, Recover, RecoveryAction, Request, SessionRef, SetModel, ToolResult,
    UsageGrouping, UsageQuery,
};
use serde_json::{Value, json};

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

    /// A string field of the body, required.
    pub fn string(&self, field: &str) -> Result<String, ErrorReply> {
        match &self.body[field] {
            Value::String(text) => Ok(text.clone()),
            Value::Null => Err(invalid(format!("the body needs a \"{field}\" field"))),
            _ => Err(invalid(format!("\"{field}\" must be a string"))),
        }
    }

    /// The body's `prompt`, refused when empty here at the edge, before a streamed answer
    /// has sent its `200` (the session would refuse it too, but only as an event).
    pub fn prompt(&self) -> Result<String, ErrorReply> {
        let prompt = self.string("prompt")?;
        if prompt.trim().is_empty() {
            return Err(invalid("the prompt is empty; nothing was sent"));
        }
        Ok(prompt)
    }

    /// A string field of the body that may be absent.
    pub fn optional_string(&self, field: &str) -> Result<Option<String>, ErrorReply> {
        match &self.body[field] {
            Value::Null => Ok(None),
            _ => self.string(field).map(Some),
        }
    }

    /// A true/false field of the body that may be absent.
    pub fn optional_bool(&self, field: &str) -> Result<Option<bool>, ErrorReply> {
        match &self.body[field] {
            Value::Null => Ok(None),
            Value::Bool(value) => Ok(Some(*value)),
            _ => Err(invalid(format!("\"{field}\" must be true or false"))),
        }
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
pub fn usage(input: Input) -> Result<Request, ErrorReply> {
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
    }
    .into())
}

/// undo, redo, back.
/// `GET .../history`: the whole transcript, or with `?limit=` a page of it.
pub fn history(input: Input) -> Result<Request, ErrorReply> {
    let active_only = input.flag("active")?;
    let before = input.number::<u64>("before")?;
    Ok(match input.number::<u32>("limit")? {
        Some(limit) => HistoryPage {
            session: input.session(),
            active_only,
            before,
            limit,
        }
        .into(),
        None if before.is_some() => return Err(invalid("?before= needs ?limit=")),
        None => History {
            session: input.session(),
            active_only,
        }
        .into(),
    })
}

pub fn head_move(input: Input, op: MoveOp) -> Result<Request, ErrorReply> {
    Ok(Move {
        session: input.session(),
        op,
    }
    .into())
}

/// `POST /v1/sessions`: `{"tools": [...], "model": "PROVIDER/MODEL", "fallback": [...],
/// "system": "..."}`, each optional.
pub fn new_session(input: Input) -> Result<Request, ErrorReply> {
    let tools_json = match &input.body["tools"] {
        Value::Null => None,
        tools @ Value::Array(_) => Some(tools.to_string()),
        _ => {
            return Err(invalid(
                "\"tools\" must be an array of function declarations",
            ));
        }
    };
    let text = |key: &str| match &input.body[key] {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(text.clone())),
        _ => Err(invalid(format!("\"{key}\" must be a string"))),
    };
    let fallback = match &input.body["fallback"] {
        Value::Null => Vec::new(),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| invalid("\"fallback\" must be an array of model names"))?,
        _ => return Err(invalid("\"fallback\" must be an array of model names")),
    };
    Ok(NewSession {
        tools_json,
        model: text("model")?,
        fallback,
        system: text("system")?,
    }
    .into())
}

/// `PUT /v1/sessions/{id}/model`: `{"model": "PROVIDER/MODEL"}`.
pub fn set_model(input: Input) -> Result<Request, ErrorReply> {
    let model = input.body["model"]
        .as_str()
        .ok_or_else(|| invalid("the body needs \"model\": MODEL or PROVIDER/MODEL"))?
        .to_string();
    Ok(SetModel {
        session: input.session(),
        model,
    }
    .into())
}

/// `{"node": N}`.
pub fn checkout(input: Input) -> Result<Request, ErrorReply> {
    let node = input.body["node"]
        .as_u64()
        .ok_or_else(|| invalid("the body needs \"node\": a node number (0 is the start)"))?;
    Ok(Move {
        session: input.session(),
        op: MoveOp::Checkout { node },
    }
    .into())
}

/// `{"name", "call_id"?, "response": {...}}`.
pub fn tool_result(input: Input) -> Result<Request, ErrorReply> {
    let response = &input.body["response"];
    if !response.is_object() {
        return Err(invalid(
            "\"response\" must be the function's result, a JSON object",
        ));
    }
    Ok(ToolResult {
        session: input.session(),
        call_id: input.optional_string("call_id")?,
        name: input.string("name")?,
        response_json: response.to_string(),
    }
    .into())
}

/// The recovery actions as the API names them: `compact`, `deep`, ... in menu order.
pub fn recovery_actions() -> Vec<&'static str> {
    RecoveryAction::ALL
        .iter()
        .map(|action| action.flag().trim_start_matches('-'))
        .collect()
}

/// `{"action": "compact" | "deep" | "clear" | "ignore" | "retry"}`.
pub fn recover(input: Input) -> Result<Request, ErrorReply> {
    let action: RecoveryAction =
        serde_json::from_value(input.body["action"].clone()).map_err(|_| {
            invalid(format!(
                "\"action\" must be one of {}",
                recovery_actions().join(", ")
            ))
        })?;
    Ok(Recover {
        session: input.session(),
        action,
    }
    .into())
}

/// `{"keep": N, "instructions": "..."}`, both optional.
pub fn compact(input: Input) -> Result<Request, ErrorReply> {
    let keep = match &input.body["keep"] {
        Value::Null => None,
        keep => Some(
            keep.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| invalid("\"keep\" must be a number of rounds (0 or more)"))?,
        ),
    };
    let instructions = input.optional_string("instructions")?;
    if instructions.as_deref().is_some_and(|t| t.trim().is_empty()) {
        return Err(invalid(
            "\"instructions\" is empty; leave it out to use Omni's own",
        ));
    }
    Ok(Compact {
        session: input.session(),
        keep,
        instructions,
    }
    .into())
}

/// `GET /v1/sessions/{id}/export?format=&all=`.
pub fn export(input: Input) -> Result<Request, ErrorReply> {
    let name = input.query.get("format").map_or("md", String::as_str);
    let format = ExportFormat::parse(name)
        .ok_or_else(|| invalid(format!("unknown format {name:?}; one of md, json, jsonl")))?;
    Ok(Export {
        session: input.session(),
        format,
        all: input.flag("all")?,
    }
    .into())
}

/// `POST /v1/import {"session": {...}, "file": "..."}`.
pub fn import(input: Input) -> Result<Request, ErrorReply> {
    let session = &input.body["session"];
    if !session.is_object() {
        return Err(invalid(
            "\"session\" must be an exported session (a JSON object)",
        ));
    }
    let data = serde_json::to_vec(session).map_err(|e| invalid(e.to_string()))?;
    let file = input.optional_string("file")?;
    Ok(Import {
        upload: None,
        data,
        tool: "omni".into(),
        file: file.unwrap_or_else(|| "http".into()),
    }
    .into())
}

/// A JSON Schema object with these properties.
pub fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// `GET /v1/search?q=...&session=&role=&since=&limit=&archived=`.
pub fn search(input: Input) -> Result<Request, ErrorReply> {
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
    let since_ms = match input.query.get("since") {
        None => None,
        Some(since) => Some(
            omni_proto::parse_since(since, crate::time::now_ms())
                .map_err(|e| invalid(format!("?since=: {e}")))?,
        ),
    };
    let limit = match input.query.get("limit") {
        None => DEFAULT_SEARCH_LIMIT,
        Some(limit) => limit
            .parse()
            .map_err(|_| invalid(format!("?limit= takes a number, not {limit:?}")))?,
    };
    Ok(omni_proto::SearchQuery {
        text,
        session: input.query_session(),
        role,
        since_ms,
        limit,
        archived: input.flag("archived")?,
    }
    .into())
}

/// How many hits a search returns unless told.
pub const DEFAULT_SEARCH_LIMIT: u32 = 20;
