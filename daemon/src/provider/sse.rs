//! Reading an answer stream: every provider (and the proxy) receives Server-Sent Events,
//! parsed by `eventsource-stream`, with one rule added here: no wait for the next event
//! lasts longer than the idle timeout (or past the request's deadline).
//!
//! A body that ends inside an event loses that event (as the SSE standard says); for the
//! APIs Omni reads, that event would have carried the finish reason, so such a stream is
//! caught as one that ended without one.

use std::pin::Pin;
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::{Stream, StreamExt};
use tokio::time::{Instant, timeout_at};

use super::error::{Phase, ProviderError};

type Inner = Pin<
    Box<
        dyn Stream<Item = Result<eventsource_stream::Event, EventStreamError<reqwest::Error>>>
            + Send,
    >,
>;

/// The events of one response body, in order.
pub struct Events {
    inner: Inner,
    idle: Duration,
}

impl Events {
    /// Reads `response`'s body as SSE; `idle` is the longest wait for the next event.
    pub fn of(response: reqwest::Response, idle: Duration) -> Self {
        Self {
            inner: Box::pin(response.bytes_stream().eventsource()),
            idle,
        }
    }

    /// The data of the next event (`None` once the body ended), waiting at most the idle
    /// timeout and never past `deadline`.
    pub async fn next(&mut self, deadline: Instant) -> Result<Option<String>, ProviderError> {
        Ok(self.next_named(deadline).await?.map(|(_, data)| data))
    }

    /// The next event's name (`None` when it has none: the standard's default, `message`)
    /// and data, as [`Events::next`] waits for them.
    pub async fn next_named(
        &mut self,
        deadline: Instant,
    ) -> Result<Option<(Option<String>, String)>, ProviderError> {
        let until = deadline.min(Instant::now() + self.idle);
        match timeout_at(until, self.inner.next()).await {
            Err(_) => Err(idle_error(Phase::Stream, self.idle)),
            Ok(None) => Ok(None),
            Ok(Some(Ok(event))) => {
                let name =
                    (!event.event.is_empty() && event.event != "message").then_some(event.event);
                Ok(Some((name, event.data)))
            }
            Ok(Some(Err(EventStreamError::Transport(error)))) => {
                Err(ProviderError::transport(Phase::Stream, &error))
            }
            Ok(Some(Err(error))) => Err(ProviderError::BrokenStream(error.to_string())),
        }
    }

    /// The data of the next event, with no deadline but the idle timeout.
    pub async fn next_idle(&mut self) -> Result<Option<String>, ProviderError> {
        self.next(Instant::now() + self.idle).await
    }
}

/// The error for an API that sent nothing for `idle` (before the headers, or mid-stream).
pub fn idle_error(phase: Phase, idle: Duration) -> ProviderError {
    ProviderError::Transport {
        phase,
        chain: format!("no data for {} s", idle.as_secs_f32()),
        timeout: true,
        connect: false,
        io_kind: Some(std::io::ErrorKind::TimedOut),
    }
}
