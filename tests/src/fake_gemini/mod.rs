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
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::fake_wire::lock;
pub use script::{Answer, Reply};

pub use crate::fake_wire::{Gate, RecordedRequest};

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    chunk_delay: Mutex<Duration>,
    /// Clients that closed their connection while a held answer waited.
    hangups: std::sync::atomic::AtomicUsize,
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
