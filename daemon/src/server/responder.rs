//! Writing a request's events to its client as they happen.

use interprocess::local_socket::tokio::Stream;
use omni_proto::{Event, Response, ResponseFrame, frame};

/// Writes frames for one request: its events, then its reply.
pub struct Responder<'a> {
    stream: &'a mut Stream,
    id: u64,
    client_gone: bool,
}

impl<'a> Responder<'a> {
    /// A responder for request `id` on `stream`.
    pub fn new(stream: &'a mut Stream, id: u64) -> Self {
        Self {
            stream,
            id,
            client_gone: false,
        }
    }

    /// Whether the client went away while the request ran.
    pub fn client_gone(&self) -> bool {
        self.client_gone
    }
}

impl Responder<'_> {
    /// Sends an event. A client that went away is not an error: the request finishes (and
    /// its results are stored) without it.
    pub async fn event(&mut self, event: Event) {
        if self.client_gone {
            return;
        }
        let frame = ResponseFrame {
            id: self.id,
            response: Response::Event(event),
        };
        if frame::write(self.stream, &frame).await.is_err() {
            self.client_gone = true;
        }
    }
}
