//! A fake OpenAI-compatible endpoint over real HTTP on 127.0.0.1.
//!
//! It answers `POST /v1/chat/completions` with a streamed SSE answer (`stream: true`) in
//! OpenAI's chunk format, tool calls arriving in interleaved fragments, and a usage chunk
//! when `stream_options.include_usage` asks, or else one `chat.completion` object; `POST /v1/responses`, the Responses API
//! as Codex CLI uses it (named events, or one `response` object when not streamed); and
//! `GET /v1/models`. It checks each request as the real API does (roles, keys, tool calls
//! answered by tool messages, Responses input item types and call outputs, the API key
//! when one is set) and refuses with OpenAI's own 400/401/404 bodies; it records every
//! request, refused or not. Accepted requests of either API follow one script of
//! [`Reply`]s (errors with real-shaped bodies, resets, cut or failed streams, raw events)
//! before the default answer resumes: an echo of the last message that also says how many
//! messages (or input items) the model was sent.
//!
//! Like [`crate::fake_gemini`], it runs on its own thread with its own runtime, so tests
//! can be plain blocking tests.

mod http;
mod responses;
mod script;
mod validate;

#[cfg(test)]
mod tests;

use crate::background::Background;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::fake_wire::lock;
pub use crate::fake_wire::{Gate, RecordedRequest};
pub use http::MODELS;
pub use responses::echo as responses_echo;
pub use responses::events::responses_error_event;
pub use script::{Answer, Reply};

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// The API key requests must carry, if any.
    key: Option<String>,
    /// Clients that hung up while a stream was held ([`Reply::HoldAfter`]).
    hangups: std::sync::atomic::AtomicUsize,
    /// Refuse a conversation over this many tokens ([`crate::count_tokens`]).
    context_limit: Mutex<Option<u64>>,
}

/// Why the fake server could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot start the fake OpenAI-compatible endpoint: {0}")]
pub struct StartError(#[from] std::io::Error);

/// A running fake OpenAI-compatible endpoint. Stops when dropped.
pub struct FakeOpenAi {
    shared: Arc<Shared>,
    server: Background,
}

impl FakeOpenAi {
    /// Starts a server on an ephemeral port of 127.0.0.1 that asks for no API key.
    pub fn start() -> Result<Self, StartError> {
        Self::serve(None)
    }

    /// Starts a server that refuses (401) any request without `Authorization: Bearer <key>`.
    pub fn with_key(key: &str) -> Result<Self, StartError> {
        Self::serve(Some(key.to_string()))
    }

    fn serve(key: Option<String>) -> Result<Self, StartError> {
        let shared = Arc::new(Shared {
            key,
            ..Shared::default()
        });
        let served = shared.clone();
        let server =
            Background::start("fake-openai", move |listener| http::serve(listener, served))?;
        Ok(Self { shared, server })
    }

    /// The base URL to configure a provider (or `OPENAI_BASE_URL`) with,
    /// `http://127.0.0.1:PORT/v1`; requests go to `{url}/chat/completions`,
    /// `{url}/responses` and `{url}/models`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.server.addr())
    }

    /// Queues replies for the next accepted chat completions or responses, in order; after
    /// them the default answer resumes.
    pub fn push(&self, replies: impl IntoIterator<Item = Reply>) {
        lock(&self.shared.script).extend(replies);
    }

    /// Every request received so far (refused ones too), oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// Refuses every chat completion and Responses request whose conversation holds more
    /// than `tokens` tokens (counted by [`crate::count_tokens`]) as OpenAI does: 400
    /// `context_length_exceeded`, "This model's maximum context length is N tokens.
    /// However, your messages resulted in X tokens. ..." (the Responses API: "Your input
    /// exceeds the context window of this model. ..."); the chat completions it answers
    /// report that count as their `prompt_tokens`. `None`: no wall (the fake then counts
    /// 10 tokens a message).
    pub fn set_context_limit(&self, tokens: Option<u64>) {
        *lock(&self.shared.context_limit) = tokens;
    }

    /// How many requests were received (refused ones too).
    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    /// How many clients hung up while a [`Reply::HoldAfter`] stream was held.
    pub fn hangups(&self) -> usize {
        self.shared
            .hangups
            .load(std::sync::atomic::Ordering::SeqCst)
    }
}
