//! The query parameters the HTTP API's routes take, one type per route: serde reads them
//! (a number or a flag that is not one is refused by name) and the OpenAPI document's
//! parameters are derived from them. Parameters a route does not take are ignored, as
//! browsers and proxies add their own.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

/// A true/false parameter: `true`, `1` or nothing (`?archived`) is true; `false` or `0` is
/// false.
fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let text = String::deserialize(deserializer)?;
    match text.as_str() {
        "false" | "0" => Ok(false),
        "true" | "1" | "" => Ok(true),
        other => Err(serde::de::Error::custom(format!(
            "takes true or false, not {other:?}"
        ))),
    }
}

/// A whole-number parameter.
fn number<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: std::str::FromStr,
{
    let text = String::deserialize(deserializer)?;
    text.parse()
        .map(Some)
        .map_err(|_| serde::de::Error::custom(format!("takes a number, not {text:?}")))
}

/// `GET /v1/sessions/{id}/history`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct HistoryQuery {
    /// true: only the nodes on the path to the head (the model's context)
    #[serde(default, deserialize_with = "flag")]
    pub active: bool,
    /// a page: at most this many entries, the latest (at most 1000); the reply's
    /// `earlier` asks for the page before
    #[serde(default, deserialize_with = "number")]
    pub limit: Option<u32>,
    /// with limit: only entries of nodes numbered below this
    #[serde(default, deserialize_with = "number")]
    pub before: Option<u64>,
}

/// `GET /v1/sessions`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListQuery {
    /// at most this many (default 50, at most 1000)
    #[serde(default, deserialize_with = "number")]
    pub limit: Option<u32>,
    /// where the page starts: a page's next_before (the sessions listed after it), or a
    /// time as since takes it (those last active before it)
    pub before: Option<String>,
    /// only sessions active since: a date, today, yesterday, an age (7d, 12h) or ms
    pub since: Option<String>,
    /// own, proxy or import
    pub origin: Option<String>,
    /// only sessions that ask or were answered by a model whose name contains this
    pub model: Option<String>,
    /// true: archived sessions too
    #[serde(default, deserialize_with = "flag")]
    pub archived: bool,
    /// true: the trash instead
    #[serde(default, deserialize_with = "flag")]
    pub trash: bool,
}

/// `GET /v1/usage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UsageParams {
    /// session (the default), model or day
    pub by: Option<String>,
    /// only answers from then on: 2026-11-01, 2026-11-01T14:30, today, yesterday, 7d,
    /// 24h, or ms since the epoch
    pub since: Option<String>,
    /// only this session's (an id, a prefix or current)
    pub session: Option<String>,
}

/// `GET /v1/sessions/{id}/export`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExportQuery {
    /// md (the default), json or jsonl
    pub format: Option<String>,
    /// true: Markdown shows reverted turns too, struck through
    #[serde(default, deserialize_with = "flag")]
    pub all: bool,
}

/// `GET /v1/search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchParams {
    /// the words (required); every word must match; "a phrase", a OR b, -word
    pub q: Option<String>,
    /// only this session's nodes (an id, a prefix or current)
    pub session: Option<String>,
    /// only nodes of this role: user, model or tool
    pub role: Option<String>,
    /// only nodes made since: a date, today, yesterday, an age (7d, 3h) or ms since the
    /// epoch
    pub since: Option<String>,
    /// at most this many hits (1 to 1000; default 20)
    #[serde(default, deserialize_with = "number")]
    pub limit: Option<u32>,
    /// true: archived sessions too
    #[serde(default, deserialize_with = "flag")]
    pub archived: bool,
}

/// `GET /v1/errors`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ErrorsQuery {
    /// only this session's (an id, a prefix or current)
    pub session: Option<String>,
}

/// `GET /v1/errors/bundle`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct BundleQuery {
    /// the session (default: the current one)
    pub session: Option<String>,
    /// only this error
    pub error: Option<String>,
}
