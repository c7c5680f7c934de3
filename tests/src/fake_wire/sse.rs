//! Writing a stream of server-sent events the way a test scripted it: at a pace, held at
//! a gate, and ended cleanly or by dropping the connection.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

use super::{Gate, finish, write_chunk, write_head};

/// One SSE frame: `event: NAME` (when named) and `data: DATA`, then the blank line.
pub(crate) fn frame(name: Option<&str>, data: &str) -> String {
    match name {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// How the connection ends after the frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The terminating chunk and an orderly close: a whole body.
    Finish,
    /// No terminating chunk, and a reset: the client sees the body break off.
    Drop,
}

/// A pause before one frame.
#[derive(Debug, Clone)]
pub(crate) enum Pause {
    /// Silence for this long.
    Sleep(Duration),
    /// Until the test opens the gate (a client hanging up meanwhile is counted, and
    /// nothing more is sent).
    Gate(Gate),
}

/// How the frames are paced.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pace {
    /// Waited before each frame.
    pub delay: Duration,
    /// Before frame number `.0`, this pause.
    pub pause: Option<(usize, Pause)>,
}

impl Pace {
    /// Frames sent with `delay` before each.
    pub(crate) fn every(delay: Duration) -> Self {
        Self { delay, pause: None }
    }

    /// Frames sent at once, with `pause` before frame number `at`.
    pub(crate) fn pause_at(at: usize, pause: Pause) -> Self {
        Self {
            delay: Duration::ZERO,
            pause: Some((at, pause)),
        }
    }
}

/// Writes a 200 `text/event-stream` head, then `frames` as `pace` says, then `ending`.
pub(crate) async fn stream_frames(
    stream: &mut TcpStream,
    frames: &[String],
    pace: Pace,
    ending: Ending,
    hangups: &AtomicUsize,
) -> std::io::Result<()> {
    write_head(stream, 200, &[], "text/event-stream").await?;
    for (i, frame) in frames.iter().enumerate() {
        let client_stayed = match &pace.pause {
            Some((at, Pause::Sleep(pause))) if *at == i => {
                tokio::time::sleep(*pause).await;
                true
            }
            Some((at, Pause::Gate(gate))) if *at == i => wait_for(gate, stream).await,
            _ => true,
        };
        if !client_stayed {
            hangups.fetch_add(1, Ordering::SeqCst);
            return Ok(());
        }
        if !pace.delay.is_zero() {
            tokio::time::sleep(pace.delay).await;
        }
        write_chunk(stream, frame.as_bytes()).await?;
    }
    match ending {
        Ending::Finish => finish(stream).await,
        Ending::Drop => stream.set_zero_linger(),
    }
}

/// Waits for `gate`; `false` if the client closed its connection first.
async fn wait_for(gate: &Gate, stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    tokio::select! {
        () = gate.wait() => true,
        read = stream.read(&mut byte) => !matches!(read, Ok(0) | Err(_)),
    }
}
