//! A streamed answer passing through: SSE events go to the client as they arrive, read as
//! neutral content by the client's API (`Api::read_event`). When an attempt breaks after
//! events reached the client, the retry's stream must begin with exactly those events'
//! content (their parts and the API's mark; ids and token counts may differ): they are
//! skipped and the rest follows seamlessly. A retry that begins otherwise cannot be
//! joined to what the client has; the stream ends with an error event instead.
//!
//! The answer's end (the event with its finish reason, and any after it) is held back
//! until the answer is recorded and durable: a client that has the whole answer can find
//! it in the recorded sessions, even after a crash.

use std::time::Duration;

use axum::body::Bytes;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::api::{Api, Event, Read};
use crate::model::PartContent;
use crate::provider::ProviderError;
use crate::provider::StreamUpdate;
use crate::provider::sse::Events;
use crate::session::answer::AnswerBuilder;

/// How a stream reaches the client: server-sent events (`alt=sse`), or, as the API
/// answers without it, one JSON array whose items arrive as they come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Framing {
    /// Server-sent events, named as upstream named them.
    #[default]
    Sse,
    /// `[{...},\r\n{...}]` (Gemini without `alt=sse`).
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

    /// One event as the client receives it; `first` when nothing was sent before.
    pub fn item(self, event: &Event, first: bool) -> Bytes {
        let data = &event.data;
        match (self, first) {
            (Framing::Sse, _) => {
                let mut item = String::new();
                if let Some(name) = &event.name {
                    item.push_str(&format!("event: {name}\r\n"));
                }
                // Data of several lines travels as several `data:` lines.
                for line in data.split('\n') {
                    item.push_str(&format!("data: {line}\r\n"));
                }
                item.push_str("\r\n");
                Bytes::from(item)
            }
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
    /// Each counted event's mark and parts, in order, to compare a retry's stream with.
    events: Vec<Seen>,
    /// The answer they make, as a session would store it (the held-back end included once
    /// the stream is complete).
    pub answer: AnswerBuilder,
    /// The answer's end, received but not yet sent: its events and updates (`None` for
    /// an event that means nothing).
    held: Vec<(Event, Option<(Seen, StreamUpdate)>)>,
    /// The held-back end of a complete answer, absorbed into `answer`, to send once it is
    /// recorded.
    ready: Vec<Event>,
}

/// What identifies a delivered event in a retried stream: its mark and its parts.
type Seen = (String, Vec<PartContent>);

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

    /// Sends one event to the client; false if it has gone away.
    pub async fn send(&mut self, client: &mpsc::Sender<Bytes>, event: &Event) -> bool {
        let item = self.framing.item(event, self.sent == 0);
        self.sent += 1;
        client.send(item).await.is_ok()
    }

    /// Sends the complete answer's held-back end; false if the client has gone away.
    pub async fn release(&mut self, client: &mpsc::Sender<Bytes>) -> bool {
        for event in std::mem::take(&mut self.ready) {
            if !self.send(client, &event).await {
                return false;
            }
        }
        true
    }

    /// The answer's end arrived whole: it counts as delivered (a retry cannot follow any
    /// more) and is part of the answer to record, and waits to be released.
    fn settle(&mut self) {
        for (event, read) in std::mem::take(&mut self.held) {
            if let Some((seen, update)) = read {
                self.events.push(seen);
                self.answer.absorb(update);
            }
            self.ready.push(event);
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
    api: &dyn Api,
    response: reqwest::Response,
    delivered: &mut Delivered,
    client: &mpsc::Sender<Bytes>,
    idle: Duration,
    deadline: Instant,
) -> Relayed {
    let mut events = Events::of(response, idle);
    let mut reader = api.reader();
    let mut index = 0;
    let mut finished = false;
    // What a broken attempt held back never reached the client: the retry sends it.
    delivered.held.clear();
    loop {
        let event = match events.next_named(deadline).await {
            Err(error) => return Relayed::Failed(error),
            Ok(None) => break,
            Ok(Some((name, data))) => Event { name, data },
        };
        let read = match reader.read(&event) {
            Ok(read) => read.map(|Read { update, mark }| ((mark, contents(&update)), update)),
            Err(error) => return Relayed::Failed(error),
        };
        let joined = index >= delivered.events.len();
        let Some((seen, update)) = read else {
            // An event that means nothing: passed on once the retry has joined.
            if finished {
                delivered.held.push((event, None));
            } else if joined && !delivered.send(client, &event).await {
                return Relayed::ClientGone;
            }
            continue;
        };
        finished |= update.finish_reason.is_some();
        if let Some(had) = delivered.events.get(index) {
            index += 1;
            if *had != seen {
                return Relayed::Diverged;
            }
            continue;
        }
        index += 1;
        if finished {
            delivered.held.push((event, Some((seen, update))));
            continue;
        }
        if !delivered.send(client, &event).await {
            return Relayed::ClientGone;
        }
        delivered.events.push(seen);
        delivered.answer.absorb(update);
    }
    if !finished || index < delivered.events.len() {
        return Relayed::Failed(ProviderError::NoFinishReason);
    }
    delivered.settle();
    Relayed::Complete
}

/// An update's parts, as a retried stream must repeat them: a tool call's id is the
/// attempt's own and may differ.
fn contents(update: &StreamUpdate) -> Vec<PartContent> {
    update
        .parts
        .iter()
        .map(|part| match &part.content {
            PartContent::FunctionCall {
                name, args_json, ..
            } => PartContent::FunctionCall {
                id: None,
                name: name.clone(),
                args_json: args_json.clone(),
            },
            other => other.clone(),
        })
        .collect()
}
