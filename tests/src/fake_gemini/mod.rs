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
#[cfg(test)]
mod tests;

use crate::background::Background;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::fake_wire::lock;
pub use script::{Answer, Reply};

pub use crate::fake_wire::{Gate, RecordedRequest};

/// The input limit the fake's models report unless a test sets another: Gemini 2.5's.
pub const DEFAULT_INPUT_TOKEN_LIMIT: u64 = 1_048_576;

struct Shared {
    script: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// `GET /v1beta/models/{model}` requests: kept apart from the conversation's.
    lookups: Mutex<Vec<RecordedRequest>>,
    /// Replies for the next lookups, before the model resource resumes.
    lookup_script: Mutex<VecDeque<Reply>>,
    /// The `inputTokenLimit` every model resource reports.
    input_token_limit: Mutex<u64>,
    /// Refuse a conversation over this many tokens ([`crate::count_tokens`]).
    context_limit: Mutex<Option<u64>>,
    chunk_delay: Mutex<Duration>,
    /// Clients that closed their connection while a held answer waited.
    hangups: std::sync::atomic::AtomicUsize,
}

impl Default for Shared {
    fn default() -> Self {
        Self {
            script: Mutex::default(),
            requests: Mutex::default(),
            lookups: Mutex::default(),
            lookup_script: Mutex::default(),
            input_token_limit: Mutex::new(DEFAULT_INPUT_TOKEN_LIMIT),
            context_limit: Mutex::default(),
            chunk_delay: Mutex::default(),
            hangups: std::sync::atomic::AtomicUsize::default(),
        }
    }
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

    /// The `inputTokenLimit` the model resource (`GET /v1beta/models/{model}`) reports
    /// ([`DEFAULT_INPUT_TOKEN_LIMIT`] until set).
    pub fn set_input_token_limit(&self, tokens: u64) {
        *lock(&self.shared.input_token_limit) = tokens;
    }

    /// Refuses every request whose conversation holds more than `tokens` tokens (counted
    /// by [`crate::count_tokens`]) as Gemini does: 400 `INVALID_ARGUMENT`, "The input token
    /// count (X) exceeds the maximum number of tokens allowed (N)."; the requests it
    /// answers report that count as their `promptTokenCount`. `None`: no wall (the usage
    /// the fake reports otherwise is fixed).
    pub fn set_context_limit(&self, tokens: Option<u64>) {
        *lock(&self.shared.context_limit) = tokens;
    }

    /// Queues replies for the next model lookups (`GET /v1beta/models/{model}`), in
    /// order; after them the model resource resumes. Conversation replies are not used.
    pub fn push_model_lookup(&self, reply: Reply) {
        lock(&self.shared.lookup_script).push_back(reply);
    }

    /// Every model lookup (`GET /v1beta/models/{model}`) received so far, oldest first:
    /// they are not among [`Self::requests`], which holds what conversations sent.
    pub fn model_lookups(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.lookups).clone()
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
