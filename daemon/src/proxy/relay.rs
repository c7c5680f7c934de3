//! A streamed answer passing through: SSE events go to the client as they arrive. When an
//! attempt breaks after events reached the client, the retry's stream must begin with
//! exactly those events' content (their parts; ids and token counts may differ): they
//! are skipped and the rest follows seamlessly. A retry that begins otherwise cannot be
//! joined to what the client has; the stream ends with an error object instead.
//!
//! The answer's end (the event with its finish reason, and any after it) is held back
//! until the answer is recorded and durable: a client that has the whole answer can find
//! it in the recorded sessions, even after a crash.

use std::time::Duration;

use axum::body::Bytes;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::model::PartContent;
use crate::provider::ProviderError;
use crate::provider::StreamUpdate;
use crate::provider::gemini::chunk;
use crate::provider::sse::Events;
use crate::session::answer::AnswerBuilder;

/// How a stream reaches the client: server-sent events (`alt=sse`), or, as the API
/// answers without it, one JSON array whose items arrive as they come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Framing {
    /// `data: {...}` events.
    #[default]
    Sse,
    /// `[{...},\r\n{...}]`.
    JsonArray,
}

impl Framing {
    /// The stream's content type.
    pub fn content_type(self) -> &'static str {
        match self {
            Framing::Sse => "text/event-stream",
            Framing::JsonArray => "application/json; charset=UTF-8",
        }
    }

    /// One response as the client receives it; `first` when nothing was sent before.
    pub fn item(self, data: &str, first: bool) -> Bytes {
        match (self, first) {
            (Framing::Sse, _) => Bytes::from(format!("data: {data}\r\n\r\n")),
            (Framing::JsonArray, true) => Bytes::from(format!("[{data}")),
            (Framing::JsonArray, false) => Bytes::from(format!(",\r\n{data}")),
        }
    }

    /// What ends the stream, if anything does.
    pub fn end(self, sent_any: bool) -> Option<Bytes> {
        match (self, sent_any) {
            (Framing::Sse, _) => None,
            (Framing::JsonArray, true) => Some(Bytes::from_static(b"]")),
            (Framing::JsonArray, false) => Some(Bytes::from_static(b"[]")),
        }
    }
}

/// What the client has received of the answer so far.
#[derive(Default)]
pub struct Delivered {
    /// How the client receives the stream.
    pub framing: Framing,
    /// Items sent to the client (answer events and any error).
    pub sent: usize,
    /// Each event's parts, in order, to compare a retry's stream with.
    events: Vec<Vec<PartContent>>,
    /// The answer they make, as a session would store it (the held-back end included once
    /// the stream is complete).
    pub answer: AnswerBuilder,
    /// The answer's end, received but not yet sent: its events' data and updates.
    held: Vec<(String, StreamUpdate)>,
    /// The held-back end of a complete answer, absorbed into `answer`, to send once it is
    /// recorded.
    ready: Vec<String>,
}

impl Delivered {
    /// Whether anything reached the client.
    pub fn any(&self) -> bool {
        !self.events.is_empty()
    }
}

/// How relaying one attempt's stream ended.
pub enum Relayed {
    /// The stream ended with a finish reason: the client has the whole answer.
    Complete,
    /// The client went away.
    ClientGone,
    /// The retry did not begin with what the client already has.
    Diverged,
    /// The stream failed (the caller classifies and retries).
    Failed(ProviderError),
}

impl Delivered {
    /// Nothing delivered yet, to a client that receives the stream as `framing` says.
    pub fn new(framing: Framing) -> Self {
        Self {
            framing,
            ..Self::default()
        }
    }

    /// Sends one item to the client; false if it has gone away.
    pub async fn send(&mut self, client: &mpsc::Sender<Bytes>, data: &str) -> bool {
        let item = self.framing.item(data, self.sent == 0);
        self.sent += 1;
        client.send(item).await.is_ok()
    }

    /// Sends the complete answer's held-back end; false if the client has gone away.
    pub async fn release(&mut self, client: &mpsc::Sender<Bytes>) -> bool {
        for data in std::mem::take(&mut self.ready) {
            if !self.send(client, &data).await {
                return false;
            }
        }
        true
    }

    /// The answer's end arrived whole: it counts as delivered (a retry cannot follow any
    /// more) and is part of the answer to record, and waits to be released.
    fn settle(&mut self) {
        for (data, update) in std::mem::take(&mut self.held) {
            self.events
                .push(update.parts.iter().map(|p| p.content.clone()).collect());
            self.answer.absorb(update);
            self.ready.push(data);
        }
    }

    /// Ends the stream for the client (a JSON array's closing bracket).
    pub async fn end(&self, client: &mpsc::Sender<Bytes>) {
        if let Some(end) = self.framing.end(self.sent > 0) {
            let _ = client.send(end).await;
        }
    }
}

/// Relays one attempt's stream to `client`, skipping what it already has.
pub async fn relay(
    response: reqwest::Response,
    delivered: &mut Delivered,
    client: &mpsc::Sender<Bytes>,
    idle: Duration,
    deadline: Instant,
) -> Relayed {
    let mut events = Events::of(response, idle);
    let mut index = 0;
    let mut finished = false;
    // What a broken attempt held back never reached the client: the retry sends it.
    delivered.held.clear();
    loop {
        let data = match events.next(deadline).await {
            Err(error) => return Relayed::Failed(error),
            Ok(None) => break,
            Ok(Some(data)) => data,
        };
        let update = match chunk::parse(&data) {
            Ok(update) => update,
            Err(error) => return Relayed::Failed(error),
        };
        finished |= update.finish_reason.is_some();
        let parts: Vec<PartContent> = update.parts.iter().map(|p| p.content.clone()).collect();
        if let Some(had) = delivered.events.get(index) {
            index += 1;
            if *had != parts {
                return Relayed::Diverged;
            }
            continue;
        }
        index += 1;
        if finished {
            delivered.held.push((data, update));
            continue;
        }
        if !delivered.send(client, &data).await {
            return Relayed::ClientGone;
        }
        delivered.events.push(parts);
        delivered.answer.absorb(update);
    }
    if !finished || index < delivered.events.len() {
        return Relayed::Failed(ProviderError::NoFinishReason);
    }
    delivered.settle();
    Relayed::Complete
}
