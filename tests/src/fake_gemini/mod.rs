//! A fake Gemini endpoint over real HTTP on 127.0.0.1.
//!
//! It answers `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` with a streamed
//! SSE answer, records every request, and follows a script of [`Reply`]s (errors with
//! real-shaped bodies, resets, cut or stalled streams) before falling back to its default
//! answer: an echo of the last prompt that also says how many contents the model was sent.
//!
//! It runs on its own thread with its own runtime, so tests can be plain blocking tests and
//! the daemon's `--demo` mode can host it without touching the daemon's runtime.

mod http;
mod script;

use crate::background::Background;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;

pub use script::{Answer, Gate, Reply};

/// The HTTP/1.1 pieces the fake OpenAI server shares.
pub(crate) use http::{finish, read_request, write_chunk, write_head};

/// One request the fake server received.
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

    /// The `contents` array of the request body.
    pub fn contents(&self) -> Vec<Value> {
        self.json()["contents"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    chunk_delay: Mutex<Duration>,
    /// Clients that closed their connection while a held answer waited.
    hangups: std::sync::atomic::AtomicUsize,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Why the fake server could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the fake Gemini endpoint: {0}")]
pub struct StartError(#[from] std::io::Error);

/// A running fake Gemini endpoint. Stops when dropped.
pub struct FakeGemini {
    shared: Arc<Shared>,
    server: Background,
}

impl FakeGemini {
    /// Starts a server on an ephemeral port of 127.0.0.1.
    pub fn start() -> Result<Self, StartError> {
        let shared = Arc::new(Shared::default());
        let served = shared.clone();
        let server =
            Background::start("fake-gemini", move |listener| http::serve(listener, served))?;
        Ok(Self { shared, server })
    }

    /// The base URL to give `omnid --base-url`.
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// Queues replies for the next requests, in order; after them the default answer
    /// resumes.
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        lock(&self.shared.script).extend(replies);
    }

    /// Delay between streamed chunks (0 by default; the demo uses a little so streaming
    /// is visible).
    pub fn set_chunk_delay(&self, delay: Duration) {
        *lock(&self.shared.chunk_delay) = delay;
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// How many clients closed their connection while a held answer waited for its gate.
    pub fn hangups(&self) -> usize {
        self.shared
            .hangups
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// How many requests were received.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }
}
