//! Reading frames from a client that may be slow, silent or hostile.
//!
//! A frame's first byte may take as long as the connection may stay idle; once it has
//! started, the whole frame must arrive within the client timeout. The buffer grows with
//! the bytes that actually arrive, never with the length a frame merely claims, and the
//! part of every frame beyond its first [`FREE_PREFIX`] bytes is counted against one
//! budget shared by all connections, so a few clients holding half-sent 16 MiB frames
//! cannot pin the daemon's memory, and small requests always get through.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use omni_proto::{FrameError, frame};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::{Instant, timeout, timeout_at};

/// Bytes of each frame that do not count against the budget (requests of this size are
/// bounded by the connection cap anyway).
pub const FREE_PREFIX: usize = 64 * 1024;

/// How much is read at once.
const CHUNK: usize = 64 * 1024;

/// Memory all connections together may hold in partly received frames.
#[derive(Debug)]
pub struct Budget {
    limit: usize,
    used: AtomicUsize,
}

impl Budget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            used: AtomicUsize::new(0),
        })
    }

    /// Bytes held now.
    #[cfg(test)]
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

/// Bytes one frame holds of the budget; given back when dropped.
#[derive(Debug)]
pub struct Grant {
    budget: Arc<Budget>,
    held: usize,
}

impl Grant {
    fn new(budget: &Arc<Budget>) -> Self {
        Self {
            budget: budget.clone(),
            held: 0,
        }
    }

    /// Holds `bytes` in all, taking more of the budget if needed.
    fn hold(&mut self, bytes: usize) -> Result<(), ReadError> {
        let more = bytes.saturating_sub(self.held);
        if more == 0 {
            return Ok(());
        }
        let budget = &self.budget;
        let taken = budget
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                (used + more <= budget.limit).then_some(used + more)
            });
        match taken {
            Ok(_) => {
                self.held += more;
                Ok(())
            }
            Err(_) => Err(ReadError::OverBudget {
                limit: budget.limit,
            }),
        }
    }
}

impl Drop for Grant {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.held, Ordering::AcqRel);
    }
}

/// Why no frame was read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Nothing arrived within the time the connection may wait.
    #[error("no request for {} s; closing this idle connection (connect again to go on)", .0.as_secs_f64())]
    Idle(Duration),
    /// A frame started but did not arrive whole in time.
    #[error("a frame started but did not arrive whole within {} s; closing this connection", .0.as_secs_f64())]
    Slow(Duration),
    /// Too many large frames are arriving at once.
    #[error(
        "omnid is receiving too many large requests at once ({} MiB in partly received \
         frames); try again shortly",
        limit / (1024 * 1024)
    )]
    OverBudget {
        /// The budget, in bytes.
        limit: usize,
    },
    /// The frame itself is wrong, or the socket failed.
    #[error(transparent)]
    Frame(#[from] FrameError),
}

/// Reads one frame's payload (and what it holds of the budget). `Ok(None)`: the client
/// closed the connection between frames.
pub async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut R,
    first_byte_within: Duration,
    whole_within: Duration,
    budget: &Arc<Budget>,
) -> Result<Option<(Vec<u8>, Grant)>, ReadError> {
    let mut prefix = [0u8; 4];
    let got = match timeout(first_byte_within, reader.read(&mut prefix)).await {
        Err(_) => return Err(ReadError::Idle(first_byte_within)),
        Ok(Ok(0)) => return Ok(None),
        Ok(Ok(n)) => n,
        Ok(Err(e)) => return Err(FrameError::Io(e).into()),
    };
    let deadline = Instant::now() + whole_within;
    match timeout_at(deadline, read_rest(reader, prefix, got, budget)).await {
        Ok(result) => result.map(Some),
        Err(_) => Err(ReadError::Slow(whole_within)),
    }
}

async fn read_rest<R: AsyncRead + Unpin>(
    reader: &mut R,
    mut prefix: [u8; 4],
    mut got: usize,
    budget: &Arc<Budget>,
) -> Result<(Vec<u8>, Grant), ReadError> {
    while got < prefix.len() {
        match reader
            .read(&mut prefix[got..])
            .await
            .map_err(FrameError::Io)?
        {
            0 => return Err(FrameError::Truncated { got, expected: 4 }.into()),
            n => got += n,
        }
    }
    let len = frame::payload_len(prefix)?;
    let mut payload: Vec<u8> = Vec::new();
    let mut grant = Grant::new(budget);
    while payload.len() < len {
        let start = payload.len();
        let want = CHUNK.min(len - start);
        if payload.capacity() < start + want {
            // Grow by doubling, but never past what the frame announced, and only with
            // the budget's leave for what lies beyond the free prefix.
            let capacity = (payload.capacity() * 2).max(start + want).min(len);
            grant.hold(capacity.saturating_sub(FREE_PREFIX))?;
            payload.reserve_exact(capacity - start);
        }
        payload.resize(start + want, 0);
        let n = reader
            .read(&mut payload[start..])
            .await
            .map_err(FrameError::Io)?;
        payload.truncate(start + n);
        if n == 0 {
            return Err(FrameError::Truncated {
                got: start,
                expected: len,
            }
            .into());
        }
    }
    Ok((payload, grant))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn framed(payload: &[u8]) -> Vec<u8> {
        let mut bytes = (payload.len() as u32).to_be_bytes().to_vec();
        bytes.extend_from_slice(payload);
        bytes
    }

    #[tokio::test]
    async fn a_whole_frame_is_read_and_its_budget_given_back() {
        let budget = Budget::new(1024 * 1024);
        let payload = vec![7u8; 300_000];
        let bytes = framed(&payload);
        let (read, grant) = read_frame(&mut &bytes[..], SECOND, SECOND, &budget)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(read, payload);
        assert!(budget.used() > 0 && budget.used() <= 300_000 - FREE_PREFIX + CHUNK);
        drop(grant);
        assert_eq!(budget.used(), 0);
        let none = read_frame(&mut &[][..], SECOND, SECOND, &budget)
            .await
            .unwrap();
        assert!(none.is_none(), "a clean close between frames");
    }

    #[tokio::test]
    async fn frames_beyond_the_budget_are_refused_but_small_ones_pass() {
        let budget = Budget::new(200_000);
        let held = Grant {
            budget: budget.clone(),
            held: 0,
        };
        let mut held = held;
        held.hold(200_000).unwrap();
        let big = framed(&vec![1u8; 500_000]);
        let err = read_frame(&mut &big[..], SECOND, SECOND, &budget)
            .await
            .unwrap_err();
        assert!(matches!(err, ReadError::OverBudget { .. }), "{err}");
        let small = framed(&[2u8; 1000]);
        let read = read_frame(&mut &small[..], SECOND, SECOND, &budget)
            .await
            .unwrap();
        assert_eq!(read.unwrap().0.len(), 1000);
    }

    #[tokio::test(start_paused = true)]
    async fn silence_and_slowness_have_limits() {
        let budget = Budget::new(1024 * 1024);
        let (mut client, mut server) = tokio::io::duplex(1024);
        let err = read_frame(&mut server, SECOND, SECOND, &budget)
            .await
            .unwrap_err();
        assert!(matches!(err, ReadError::Idle(_)), "{err}");
        tokio::io::AsyncWriteExt::write_all(&mut client, &[0, 0, 0, 100, 1, 2])
            .await
            .unwrap();
        let err = read_frame(&mut server, SECOND, SECOND, &budget)
            .await
            .unwrap_err();
        assert!(matches!(err, ReadError::Slow(_)), "{err}");
    }
}
