//! Where a request's events go while it runs: frames on the socket, or a channel that the
//! HTTP edge turns into server-sent events. Handlers see one type and never the transport.

use omni_proto::{Event, Response, ResponseFrame, frame};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::sync::mpsc;

/// A byte stream both ways: the socket a connection speaks frames on.
pub trait Duplex: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Duplex for T {}

/// Writes one request's events to its client as they happen.
pub struct Responder<'a> {
    sink: Sink<'a>,
    client_gone: bool,
}

enum Sink<'a> {
    /// Frames carrying the request's id, on the connection's socket.
    Frames { stream: &'a mut dyn Duplex, id: u64 },
    /// Events for the HTTP edge, which writes them as the client reads.
    Channel(mpsc::Sender<Event>),
}

impl<'a> Responder<'a> {
    /// Events for request `id`, as frames on `stream`.
    pub fn frames(stream: &'a mut dyn Duplex, id: u64) -> Self {
        Self {
            sink: Sink::Frames { stream, id },
            client_gone: false,
        }
    }

    /// Events into `channel`; the client is gone once its receiver is dropped.
    pub fn channel(channel: mpsc::Sender<Event>) -> Self {
        Self {
            sink: Sink::Channel(channel),
            client_gone: false,
        }
    }

    /// Whether the client went away while the request ran.
    pub fn client_gone(&self) -> bool {
        self.client_gone
    }

    /// Sends an event. A client that went away is not an error: the request finishes (and
    /// its results are stored) without it.
    pub async fn event(&mut self, event: Event) {
        if self.client_gone {
            return;
        }
        let sent = match &mut self.sink {
            Sink::Frames { stream, id } => {
                let frame = ResponseFrame {
                    id: *id,
                    response: Response::Event(event),
                };
                frame::write(stream, &frame).await.is_ok()
            }
            Sink::Channel(channel) => channel.send(event).await.is_ok(),
        };
        self.client_gone = !sent;
    }

    /// Resolves once the client is gone: for a socket, when it closes or sends anything
    /// (a client must not send while a request runs); for a channel, when its reader is
    /// dropped. Used by requests that run until the client leaves (`attach`).
    pub async fn closed(&mut self) {
        if !self.client_gone {
            match &mut self.sink {
                Sink::Frames { stream, .. } => {
                    let mut byte = [0u8; 1];
                    let _ = stream.read(&mut byte).await;
                }
                Sink::Channel(channel) => channel.closed().await,
            }
        }
        self.client_gone = true;
    }
}
