//! What the fake model APIs ([`crate::fake_gemini`], [`crate::fake_openai`],
//! [`crate::fake_anthropic`]) share: the record of a request, just enough HTTP/1.1 to read
//! one request per connection and write a chunked response whose end the fake controls,
//! and the [`Gate`] a test opens to release a held stream.

#[cfg(test)]
pub(crate) mod client;
mod io;
pub(crate) mod sse;
mod tokens;

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::Notify;

pub(crate) use io::{accept_each, finish, read_request, write_chunk, write_head, write_whole};
pub use tokens::count_tokens;

/// One request a fake server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Path and query, e.g. `/v1beta/models/m:streamGenerateContent?alt=sse`.
    pub target: String,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The raw body.
    pub body: String,
}

impl RecordedRequest {
    /// A header's value (name is case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (`Null` if it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The `contents` array of the request body (Gemini's conversation).
    pub fn contents(&self) -> Vec<Value> {
        self.json()["contents"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The path without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
}

/// Locks a fake's shared state, whether or not a test thread panicked while holding it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Holds a stream until the test opens it: lets a test act while an answer is half sent,
/// without guessing at timings. Opening before the stream reaches the gate is fine.
#[derive(Debug, Clone, Default)]
pub struct Gate(Arc<Notify>);

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets the held stream continue.
    pub fn open(&self) {
        self.0.notify_one();
    }

    pub(crate) async fn wait(&self) {
        self.0.notified().await;
    }
}
