//! What the fake server answers: scripted replies and the default echo answer.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Notify;

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

/// A streamed answer: text pieces (one SSE event each) and how it ends.
#[derive(Debug, Clone)]
pub struct Answer {
    /// Text of each chunk, in order.
    pub chunks: Vec<String>,
    /// The finish reason on the last chunk (`None`: the stream ends without one).
    pub finish_reason: Option<String>,
    /// A `thoughtSignature` carried by the last chunk's part.
    pub signature: Option<String>,
    /// Thought summary pieces sent before the text.
    pub thoughts: Vec<String>,
}

impl Answer {
    /// An answer of the given chunks that finishes with `STOP`.
    pub fn text<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Self {
        Self {
            chunks: chunks.into_iter().map(Into::into).collect(),
            finish_reason: Some("STOP".into()),
            signature: None,
            thoughts: Vec::new(),
        }
    }

    /// The default answer: echoes the latest prompt and says how many contents were sent,
    /// split into word-sized chunks.
    pub fn echo(request: &Value) -> Self {
        let contents = request["contents"].as_array().cloned().unwrap_or_default();
        let prompt = contents
            .last()
            .and_then(|c| c["parts"].as_array())
            .map(|parts| {
                parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(" / ")
            })
            .unwrap_or_default();
        let text = format!(
            "You said: \"{prompt}\". I am the Omni demo model, and I was sent {} message{} of context.",
            contents.len(),
            if contents.len() == 1 { "" } else { "s" }
        );
        let mut chunks = Vec::new();
        for word in text.split_inclusive(' ') {
            chunks.push(word.to_string());
        }
        Self::text(chunks)
    }

    /// The SSE `data` payloads of this answer.
    pub fn events(&self, model: &str) -> Vec<String> {
        let mut events: Vec<String> = self
            .thoughts
            .iter()
            .map(|t| {
                json!({"candidates": [{"content": {"role": "model", "parts": [{"text": t, "thought": true}]}, "index": 0}],
                       "modelVersion": model})
                .to_string()
            })
            .collect();
        let last = self.chunks.len().saturating_sub(1);
        let mut total = 0u64;
        for (i, chunk) in self.chunks.iter().enumerate() {
            total += 1;
            let mut part = json!({"text": chunk});
            let mut candidate = json!({"index": 0});
            if i == last {
                if let Some(signature) = &self.signature {
                    part["thoughtSignature"] = json!(signature);
                }
                if let Some(reason) = &self.finish_reason {
                    candidate["finishReason"] = json!(reason);
                }
            }
            candidate["content"] = json!({"role": "model", "parts": [part]});
            events.push(
                json!({"candidates": [candidate],
                       "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": total, "totalTokenCount": 8 + total},
                       "modelVersion": model})
                .to_string(),
            );
        }
        events
    }
}

/// One scripted reply to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A streamed answer.
    Answer(Answer),
    /// An HTTP error: status, extra headers, body.
    Status {
        /// HTTP status code.
        status: u16,
        /// Extra response headers (e.g. `Retry-After`).
        headers: Vec<(String, String)>,
        /// The body, usually a Gemini error object.
        body: String,
    },
    /// Reset the connection before sending a single byte.
    Reset,
    /// Stream the first `chunks` events of `answer`, then cut the connection.
    CutAfter {
        /// Events sent before the cut.
        chunks: usize,
        /// The answer being cut.
        answer: Answer,
    },
    /// Stream the first `chunks` events of `answer`, then send nothing for `stall`, then
    /// the rest.
    StallAfter {
        /// Events sent before the stall.
        chunks: usize,
        /// How long to stay silent.
        stall: Duration,
        /// The answer.
        answer: Answer,
    },
    /// Stream the first `chunks` events of `answer`, wait for `gate`, then the rest.
    HoldAfter {
        /// Events sent before holding.
        chunks: usize,
        /// Opened by the test.
        gate: Gate,
        /// The answer.
        answer: Answer,
    },
    /// Send these raw SSE `data` payloads with a 200 status, then end the body.
    RawEvents(Vec<String>),
}

impl Reply {
    /// An HTTP error with a Gemini-shaped body.
    pub fn error(status: u16, api_status: &str, message: &str) -> Self {
        Reply::Status {
            status,
            headers: Vec::new(),
            body: json!({"error": {"code": status, "message": message, "status": api_status}})
                .to_string(),
        }
    }
}
