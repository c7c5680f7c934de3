//! What the fake server answers: scripted replies and the default echo answer.

use std::time::Duration;

use serde_json::{Value, json};

use crate::fake_wire::Gate;

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
    /// Function calls (name, arguments, id) sent with the last chunk; the first carries a
    /// thought signature, as Gemini 3 sends them.
    pub calls: Vec<(String, Value, Option<String>)>,
}

impl Answer {
    /// An answer of the given chunks that finishes with `STOP`.
    pub fn text<S: Into<String>>(chunks: impl IntoIterator<Item = S>) -> Self {
        Self {
            chunks: chunks.into_iter().map(Into::into).collect(),
            finish_reason: Some("STOP".into()),
            signature: None,
            thoughts: Vec::new(),
            calls: Vec::new(),
        }
    }

    /// An answer that only calls functions: (name, arguments, id).
    pub fn calls<S: Into<String>>(
        calls: impl IntoIterator<Item = (S, Value, Option<&'static str>)>,
    ) -> Self {
        let mut answer = Self::text(Vec::<String>::new());
        answer.calls = calls
            .into_iter()
            .map(|(name, args, id)| (name.into(), args, id.map(str::to_string)))
            .collect();
        answer
    }

    /// The default answer: echoes the latest prompt and says how many contents were sent,
    /// split into word-sized chunks.
    pub fn echo(request: &Value) -> Self {
        let contents = request["contents"].as_array().cloned().unwrap_or_default();
        let parts = contents
            .last()
            .and_then(|c| c["parts"].as_array())
            .cloned()
            .unwrap_or_default();
        let prompt = parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(" / ");
        let results: Vec<String> = parts
            .iter()
            .filter_map(|p| p.get("functionResponse"))
            .map(|r| {
                format!(
                    "{} returned {}",
                    r["name"].as_str().unwrap_or("?"),
                    r["response"]
                )
            })
            .collect();
        let heard = if results.is_empty() {
            format!("You said: \"{prompt}\".")
        } else {
            format!("Thanks: {}.", results.join("; "))
        };
        let text = format!(
            "{heard} I am the Omni demo model, and I was sent {} message{} of context.",
            contents.len(),
            if contents.len() == 1 { "" } else { "s" }
        );
        let mut chunks = Vec::new();
        for word in text.split_inclusive(' ') {
            chunks.push(word.to_string());
        }
        Self::text(chunks)
    }

    /// The whole answer as `generateContent` returns it: one response with all the text.
    pub fn whole(&self, model: &str) -> String {
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": self.chunks.concat()}]},
                               "finishReason": self.finish_reason, "index": 0}],
               "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 1, "totalTokenCount": 9},
               "modelVersion": model})
        .to_string()
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
        // Calls-only answers still need one chunk to carry them.
        let chunks: Vec<Option<&String>> = if self.chunks.is_empty() {
            vec![None]
        } else {
            self.chunks.iter().map(Some).collect()
        };
        let last = chunks.len() - 1;
        let mut total = 0u64;
        for (i, chunk) in chunks.into_iter().enumerate() {
            total += 1;
            let mut parts = Vec::new();
            if let Some(text) = chunk {
                let mut part = json!({"text": text});
                if i == last
                    && let Some(signature) = &self.signature
                {
                    part["thoughtSignature"] = json!(signature);
                }
                parts.push(part);
            }
            let mut candidate = json!({"index": 0});
            if i == last {
                for (n, (name, args, id)) in self.calls.iter().enumerate() {
                    let mut call = json!({"name": name, "args": args});
                    if let Some(id) = id {
                        call["id"] = json!(id);
                    }
                    let mut part = json!({"functionCall": call});
                    if n == 0 {
                        part["thoughtSignature"] = json!(format!("sig-{name}"));
                    }
                    parts.push(part);
                }
                if let Some(reason) = &self.finish_reason {
                    candidate["finishReason"] = json!(reason);
                }
            }
            candidate["content"] = json!({"role": "model", "parts": parts});
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
