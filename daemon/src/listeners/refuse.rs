//! Connections past a listener's cap: answered `503` at once (before their request is
//! read) and closed, so a client learns why instead of hanging, and the descriptors they
//! hold go back within a second.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::Semaphore;
use tokio_util::task::TaskTracker;

/// Refused connections being answered at once; past that a refused connection is closed
/// without an answer.
const ANSWERING_AT_ONCE: usize = 64;

/// The longest a refused connection is kept: to write the 503 and read what the client
/// sent (closing with unread bytes would reset the connection and could lose the 503).
const LINGER: Duration = Duration::from_secs(1);

/// The most of a refused client's request that is read (and thrown away).
const DRAIN_BYTES: usize = 64 * 1024;

/// The whole response a connection past the cap gets.
#[derive(Clone)]
pub struct Busy(Arc<[u8]>);

impl Busy {
    /// A 503 carrying `body` (of `content_type`), asking to retry in a second.
    pub fn new(content_type: &str, body: &str) -> Self {
        let response = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: {content_type}\r\n\
             content-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        Self(response.into_bytes().into())
    }
}

/// A listener's refusals: how many are being answered, and when the log last heard.
pub(super) struct Refusals {
    listener: &'static str,
    answering: Arc<Semaphore>,
    last_warned: Option<Instant>,
    unreported: u64,
}

impl Refusals {
    pub(super) fn new(listener: &'static str) -> Self {
        Self {
            listener,
            answering: Arc::new(Semaphore::new(ANSWERING_AT_ONCE)),
            last_warned: None,
            unreported: 0,
        }
    }

    /// Answers `io` with `busy` and closes it, in a task of its own.
    pub(super) fn refuse<Io>(&mut self, io: Io, cap: usize, busy: &Busy, tracker: &TaskTracker)
    where
        Io: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        self.warn(cap);
        let Ok(slot) = self.answering.clone().try_acquire_owned() else {
            return;
        };
        let busy = busy.clone();
        tracker.spawn(async move {
            let _ = tokio::time::timeout(LINGER, answer(io, &busy)).await;
            drop(slot);
        });
    }

    /// At most one warning every ten seconds, counting the refusals in between.
    fn warn(&mut self, cap: usize) {
        self.unreported += 1;
        let due = self
            .last_warned
            .is_none_or(|at| at.elapsed() >= Duration::from_secs(10));
        if due {
            tracing::warn!(
                listener = self.listener,
                cap,
                refused = self.unreported,
                "connections refused: the listener serves its most at once"
            );
            self.last_warned = Some(Instant::now());
            self.unreported = 0;
        }
    }
}

async fn answer<Io: AsyncRead + AsyncWrite + Unpin>(mut io: Io, busy: &Busy) {
    if io.write_all(&busy.0).await.is_err() || io.shutdown().await.is_err() {
        return;
    }
    let mut sink = [0u8; 4096];
    let mut read = 0;
    while read < DRAIN_BYTES {
        match io.read(&mut sink).await {
            Ok(0) | Err(_) => return,
            Ok(n) => read += n,
        }
    }
}
