//! What the fake server answers: scripted replies, OpenAI-shaped errors, and the streamed
//! chunks of an answer (the default one is an echo of the last message).

use serde_json::{Value, json};

/// A streamed answer: reasoning pieces, text pieces and tool calls, one delta each (a
/// tool call's arguments arrive in several fragments, as OpenAI sends them).
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// Reasoning pieces (`delta.reasoning_content`), sent before the text.
    pub reasoning: Vec<String>,
    /// Text pieces (`delta.content`), in order.
    pub text: Vec<String>,
    /// Tool calls: id, function name, arguments.
    pub tool_calls: Vec<(String, String, Value)>,
}

impl Answer {
    /// An answer of these text pieces that finishes with `stop`.
    pub fn text<S: Into<String>>(pieces: impl IntoIterator<Item = S>) -> Self {
        Self {
            text: pieces.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// The same answer with these reasoning pieces streamed before the text.
    pub fn reasoning<S: Into<String>>(mut self, pieces: impl IntoIterator<Item = S>) -> Self {
        self.reasoning = pieces.into_iter().map(Into::into).collect();
        self
    }

    /// An answer that only calls tools: (id, function name, arguments); it finishes with
    /// `tool_calls`.
    pub fn tool_calls<I: Into<String>, N: Into<String>>(
        calls: impl IntoIterator<Item = (I, N, Value)>,
    ) -> Self {
        Self {
            tool_calls: calls
                .into_iter()
                .map(|(id, name, arguments)| (id.into(), name.into(), arguments))
                .collect(),
            ..Self::default()
        }
    }

    /// The default answer to `messages`: echoes the last user message (or thanks for the
    /// trailing tool results, each named by its call's id as tool messages carry no name)
    /// and says how many messages were sent, in word-sized pieces.
    pub fn echo(messages: &[Value]) -> Self {
        let results: Vec<String> = messages
            .iter()
            .rev()
            .take_while(|m| m["role"] == "tool")
            .map(|m| {
                let id = m["tool_call_id"].as_str().unwrap_or_default();
                let content = m["content"].as_str().unwrap_or_default();
                format!("Tool {id} returned {content}")
            })
            .collect();
        let heard = if results.is_empty() {
            let said = messages
                .last()
                .and_then(|m| m["content"].as_str())
                .unwrap_or_default();
            format!("You said: {said}.")
        } else {
            let results: Vec<String> = results.into_iter().rev().collect();
            format!("Thanks: {}.", results.join("; "))
        };
        let text = format!(
            "{heard} I am a fake OpenAI-compatible model, and I was sent {} message{}.",
            messages.len(),
            if messages.len() == 1 { "" } else { "s" }
        );
        Self::text(text.split_inclusive(' '))
    }

    /// `stop`, or `tool_calls` when the answer calls tools.
    pub fn finish_reason(&self) -> &'static str {
        if self.tool_calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
    }

    /// The `data` payloads of the deltas: the role, the reasoning, the text and the tool
    /// call fragments; no finish reason, usage or `[DONE]` (see [`Answer::events`]).
    pub fn deltas(&self, model: &str) -> Vec<String> {
        let mut deltas = vec![json!({"role": "assistant", "content": ""})];
        deltas.extend(
            self.reasoning
                .iter()
                .map(|r| json!({"reasoning_content": r})),
        );
        deltas.extend(self.text.iter().map(|t| json!({"content": t})));
        deltas.extend(self.call_fragments());
        deltas
            .into_iter()
            .map(|delta| chunk(model, delta, Value::Null).to_string())
            .collect()
    }

    /// Every `data` payload of the stream: the deltas, the finish reason, the usage (when
    /// `usage` is asked for; the prompt counts 10 tokens a message, the answer one a
    /// piece), and `[DONE]`.
    pub fn events(&self, model: &str, messages: usize, usage: bool) -> Vec<String> {
        let mut events = self.deltas(model);
        let pieces = events.len() - 1;
        events.push(chunk(model, json!({}), json!(self.finish_reason())).to_string());
        if usage {
            let (prompt, completion) = (messages * 10, pieces);
            events.push(
                json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                       "model": model, "choices": [],
                       "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                 "total_tokens": prompt + completion}})
                .to_string(),
            );
        }
        events.push("[DONE]".into());
        events
    }

    /// The whole answer as a request without `stream` gets it: one `chat.completion`,
    /// with the usage counted as [`Answer::events`] counts it.
    pub fn whole(&self, model: &str, messages: usize) -> Value {
        let mut message = json!({"role": "assistant", "content": null});
        if !self.text.is_empty() {
            message["content"] = json!(self.text.concat());
        }
        if !self.reasoning.is_empty() {
            message["reasoning_content"] = json!(self.reasoning.concat());
        }
        if !self.tool_calls.is_empty() {
            let calls: Vec<Value> = self
                .tool_calls
                .iter()
                .map(|(id, name, arguments)| {
                    json!({"id": id, "type": "function",
                       "function": {"name": name, "arguments": arguments.to_string()}})
                })
                .collect();
            message["tool_calls"] = json!(calls);
        }
        let (prompt, completion) = (messages * 10, self.deltas(model).len() - 1);
        json!({"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
               "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason()}],
               "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                         "total_tokens": prompt + completion}})
    }

    /// The tool calls as OpenAI streams them: per call a head (id, type, name, empty
    /// arguments) then the arguments text in two fragments; the fragments of successive
    /// calls interleave (head 0, piece 0a, head 1, piece 0b, piece 1a, ...), so only a
    /// client that assembles by `index` gets them right.
    fn call_fragments(&self) -> Vec<Value> {
        let fragment = |index: usize, arguments: &str| json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]});
        let mut out = Vec::new();
        let mut rest: Option<Value> = None;
        for (index, (id, name, arguments)) in self.tool_calls.iter().enumerate() {
            out.push(
                json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                                            "function": {"name": name, "arguments": ""}}]}),
            );
            out.extend(rest.take());
            let text = arguments.to_string();
            let (first, second) = text.split_at(middle(&text));
            out.push(fragment(index, first));
            rest = Some(fragment(index, second));
        }
        out.extend(rest);
        out
    }
}

/// The char boundary nearest the middle of `text`.
pub(crate) fn middle(text: &str) -> usize {
    let mut at = text.len() / 2;
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// One `chat.completion.chunk` with a single choice.
fn chunk(model: &str, delta: Value, finish_reason: Value) -> Value {
    json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model,
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
}

/// One scripted reply to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// An answer: streamed, or one object when not streamed.
    Answer(Answer),
    /// An HTTP error: status, extra headers, body.
    Status {
        /// HTTP status code.
        status: u16,
        /// Extra response headers (e.g. `retry-after-ms`).
        headers: Vec<(String, String)>,
        /// The body, usually an OpenAI error object.
        body: String,
    },
    /// Reset the connection before sending a single byte.
    Reset,
    /// Stream the first `after` events of `answer` (its deltas only), then end the body
    /// cleanly: no finish reason, no usage, no `[DONE]`. Not streamed: half the body.
    Cut {
        /// The answer being cut.
        answer: Answer,
        /// Events sent before the end.
        after: usize,
    },
    /// Stream the first `after` events of `answer`, then fail: chat completions get a
    /// `data: {"error": ...}` event, the Responses API a `response.failed` event; then the
    /// body ends. Not streamed: a 500 with that error.
    FailAfter {
        /// The answer broken off.
        answer: Answer,
        /// Events sent before the failure.
        after: usize,
        /// The error's code, e.g. `server_error`.
        code: &'static str,
        /// The error's message.
        message: String,
    },
    /// A 200 stream of these SSE frames, written as they are (e.g. a Responses `error`
    /// event made with [`crate::fake_openai::responses_error_event`]).
    Raw(Vec<String>),
    /// Stream `answer` whole, but hold it before event number `after` until the test opens
    /// `gate` (a client hanging up meanwhile is counted in
    /// [`crate::fake_openai::FakeOpenAi::hangups`], and nothing more is sent).
    HoldAfter {
        /// The answer held.
        answer: Answer,
        /// Events sent before the hold.
        after: usize,
        /// Opened by the test to let the rest through.
        gate: crate::fake_wire::Gate,
    },
}

/// An OpenAI error body: `{"error": {"message", "type", "param", "code"}}`.
pub(crate) fn error_body(
    kind: &str,
    code: Option<&str>,
    param: Option<&str>,
    message: &str,
) -> String {
    json!({"error": {"message": message, "type": kind, "param": param, "code": code}}).to_string()
}

impl Reply {
    /// An HTTP error with an OpenAI-shaped body (`param` null).
    pub fn error(status: u16, kind: &str, code: Option<&str>, message: &str) -> Self {
        Reply::Status {
            status,
            headers: Vec::new(),
            body: error_body(kind, code, None, message),
        }
    }

    /// A 429 for a rate limit, with `retry-after-ms: <ms>` and `retry-after: <ceil secs>`.
    pub fn rate_limited(ms: u64) -> Self {
        let wait = if ms < 1000 {
            format!("{ms}ms")
        } else {
            format!("{}s", ms as f64 / 1000.0)
        };
        let message = format!(
            "Rate limit reached for fake-model in organization org-fake on tokens per min (TPM): \
             Limit 30000, Used 29850, Requested 300. Please try again in {wait}. Visit \
             https://platform.openai.com/account/rate-limits to learn more."
        );
        let mut reply = Self::error(429, "requests", Some("rate_limit_exceeded"), &message);
        if let Reply::Status { headers, .. } = &mut reply {
            headers.push(("retry-after-ms".into(), ms.to_string()));
            headers.push(("retry-after".into(), ms.div_ceil(1000).to_string()));
        }
        reply
    }

    /// A server error: 503 is "overloaded", any other status "had an error".
    pub fn server_error(status: u16) -> Self {
        let message = if status == 503 {
            "The server is overloaded or not ready yet."
        } else {
            "The server had an error while processing your request. Sorry about that!"
        };
        Self::error(status, "server_error", None, message)
    }

    /// `answer` broken off after `after` events by a server error.
    pub fn fail_after(answer: Answer, after: usize) -> Self {
        Reply::FailAfter {
            answer,
            after,
            code: "server_error",
            message: "The server had an error while processing your request. Sorry about that!"
                .into(),
        }
    }

    /// A 429 for a spent quota (not worth retrying).
    pub fn insufficient_quota() -> Self {
        Self::error(
            429,
            "insufficient_quota",
            Some("insufficient_quota"),
            "You exceeded your current quota, please check your plan and billing details. For \
             more information on this error, read the docs: \
             https://platform.openai.com/docs/guides/error-codes/api-errors.",
        )
    }

    /// A 400 for a conversation longer than the model's context.
    pub fn context_length_exceeded() -> Self {
        Reply::Status {
            status: 400,
            headers: Vec::new(),
            body: error_body(
                "invalid_request_error",
                Some("context_length_exceeded"),
                Some("messages"),
                "This model's maximum context length is 8192 tokens. However, your messages \
                 resulted in 9000 tokens. Please reduce the length of the messages.",
            ),
        }
    }
}
