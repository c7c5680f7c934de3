//! A fake Anthropic Messages API over real HTTP on 127.0.0.1.
//!
//! It answers `POST /v1/messages` (streamed with `stream: true`, as Anthropic's named SSE
//! events; else one `message` object), `POST /v1/messages/count_tokens` and
//! `GET /v1/models`. It checks each request as the real API does (the key from
//! `x-api-key` or `Authorization: Bearer`, the `anthropic-version` header, `model`,
//! `max_tokens`, roles alternating from `user`, `tool_use`/`tool_result` pairing,
//! signed thinking, no stray fields) and refuses with Anthropic's own error bodies; it
//! records every request, refused or not, headers included (e.g. `anthropic-beta`).
//! Accepted messages requests follow a script of [`Reply`]s (errors, resets, cut, broken,
//! slow or held streams) before the default answer resumes: an echo of the last user turn
//! that also says how many messages were sent and whether a system prompt came.
//!
//! Like the other fakes, it runs on its own thread with its own runtime, so tests can be
//! plain blocking tests.

mod answer;
mod events;
mod http;
mod script;
mod turns;
mod validate;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::background::Background;
use crate::fake_wire::lock;

pub use crate::fake_wire::{Gate, RecordedRequest};
pub use answer::Answer;
pub use events::{Event, error_event};
pub use http::MODELS;
pub use script::Reply;

/// The key [`FakeAnthropic::start`] asks for.
pub const DEFAULT_KEY: &str = "sk-ant-fake-key-0123456789";

/// An `anthropic-version` the API accepts (the first; newer SDKs send newer dates).
pub const VERSION: &str = "2023-06-01";

struct Shared {
    script: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// The API key every request must carry.
    key: String,
    /// Clients that hung up while a held answer waited.
    hangups: AtomicUsize,
    /// Refuse a conversation over this many tokens ([`crate::count_tokens`]).
    context_limit: Mutex<Option<u64>>,
}

/// Why the fake server could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the fake Anthropic endpoint: {0}")]
pub struct StartError(#[from] std::io::Error);

/// A running fake Anthropic endpoint. Stops when dropped.
pub struct FakeAnthropic {
    shared: Arc<Shared>,
    server: Background,
}

impl FakeAnthropic {
    /// Starts a server on an ephemeral port of 127.0.0.1 that asks for [`DEFAULT_KEY`].
    pub fn start() -> Result<Self, StartError> {
        Self::with_key(DEFAULT_KEY)
    }

    /// Starts a server that refuses (401) any request without this key.
    pub fn with_key(key: &str) -> Result<Self, StartError> {
        let shared = Arc::new(Shared {
            script: Mutex::default(),
            requests: Mutex::default(),
            key: key.to_string(),
            hangups: AtomicUsize::new(0),
            context_limit: Mutex::default(),
        });
        let served = shared.clone();
        let server = Background::start("fake-anthropic", move |listener| {
            http::serve(listener, served)
        })?;
        Ok(Self { shared, server })
    }

    /// The base URL, `http://127.0.0.1:PORT`, as `ANTHROPIC_BASE_URL` and the SDK's
    /// `base_url` take it (without `/v1`).
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// Queues replies for the next accepted `POST /v1/messages`, in order; after them the
    /// default answer resumes. Refused requests, token counts and model lists take none.
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        lock(&self.shared.script).extend(replies);
    }

    /// Refuses every `POST /v1/messages` whose conversation holds more than `tokens`
    /// tokens (counted by [`crate::count_tokens`]) as the API does: 400
    /// `invalid_request_error`, "prompt is too long: X tokens > N maximum"; the requests it
    /// answers report that count as their `input_tokens`. `None`: no wall (the fake then
    /// counts 10 tokens a message).
    pub fn set_context_limit(&self, tokens: Option<u64>) {
        *lock(&self.shared.context_limit) = tokens;
    }

    /// Every request received so far (refused ones too), oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// How many requests were received (refused ones too).
    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    /// How many clients hung up while a [`Reply::HoldAfter`] waited for its gate.
    pub fn hangups(&self) -> usize {
        self.shared.hangups.load(Ordering::SeqCst)
    }
}
