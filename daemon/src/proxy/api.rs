//! What the proxy's core asks of each API it serves: its error shape, how to read one of
//! its streamed events as neutral content (to continue a cut stream and to record it),
//! and how the end of a stream that failed is told. Everything else (retries, the
//! breaker, continuation, recording, diagnostics, keys) is the core's, shared by every
//! API module (`gemini/`, ...).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::listeners::BodyError;
use crate::provider::{ProviderError, StreamUpdate};

/// One server-sent event as it travels to the client: its name (the `event:` field, which
/// some APIs' clients read) and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field, if the API names its events.
    pub name: Option<String>,
    /// The `data:` field.
    pub data: String,
}

impl Event {
    /// An unnamed event.
    pub fn data(data: impl Into<String>) -> Self {
        Self {
            name: None,
            data: data.into(),
        }
    }
}

/// One streamed event read as neutral content.
pub struct Read {
    /// Its parts, and its finish reason if it ends the answer.
    pub update: StreamUpdate,
    /// What, besides its parts, it must match in a retried stream to count as the event
    /// the client already has (an event's kind and position, or a fragment of a tool
    /// call, where the API has them; never ids or token counts, which differ between
    /// attempts).
    pub mark: String,
}

impl Read {
    /// An event that is its parts alone.
    pub fn parts(update: StreamUpdate) -> Self {
        Self {
            update,
            mark: String::new(),
        }
    }
}

/// Reads one attempt's events, in order (an API may assemble what arrives in fragments).
pub trait ReadEvents: Send {
    /// The next event's content; `None` for an event that means nothing (a ping), which is
    /// passed on but never counted when a retried stream is joined to what the client has.
    fn read(&mut self, event: &Event) -> Result<Option<Read>, ProviderError>;
}

/// One client-facing API served by the proxy.
pub trait Api: Sync + Send + 'static {
    /// Its name in logs, counters and recorded sessions' origins (`gemini`).
    fn name(&self) -> &'static str;

    /// An error object in the API's own shape, as JSON text, for an answer of `code`.
    fn error_body(&self, code: StatusCode, message: &str) -> String;

    /// The content type of its error answers.
    fn error_type(&self) -> &'static str {
        "application/json"
    }

    /// A reader of one attempt's stream of events (a retry gets a fresh one).
    fn reader(&self) -> Box<dyn ReadEvents>;

    /// The event that ends a stream with an error whose body (in this API's shape) is
    /// `body`.
    fn error_event(&self, body: &str) -> Event {
        Event::data(body)
    }

    /// A whole answer (a request without `stream`) as the events its stream would have
    /// carried, so that [`Api::reader`] reads it: one reading per API, and a whole answer
    /// recorded exactly as the same answer streamed. By default the answer is its one
    /// event (Gemini's `GenerateContentResponse`).
    fn whole_events(&self, answer: serde_json::Value) -> Vec<Event> {
        vec![Event::data(answer.to_string())]
    }
}

/// An error answer in `api`'s shape.
pub fn error_response(api: &dyn Api, code: StatusCode, message: &str) -> Response {
    (
        code,
        [(axum::http::header::CONTENT_TYPE, api.error_type())],
        api.error_body(code, message),
    )
        .into_response()
}

/// A request whose body could not be read: too large (413), too slow (408), no room in
/// the bodies' budget (503), or cut off.
pub fn unread_body(api: &dyn Api, error: &BodyError) -> Response {
    let code = match error {
        BodyError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        BodyError::TooSlow { .. } => StatusCode::REQUEST_TIMEOUT,
        BodyError::Broken(_) => StatusCode::BAD_REQUEST,
        BodyError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
    };
    error_response(api, code, &format!("omnid: {error}"))
}
