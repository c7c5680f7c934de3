//! Reading a request's body with a size limit and a time limit: a body declared larger
//! than the limit is refused at once, before any of it is kept; one that trickles in is
//! cut off, so a client cannot hold a connection open by sending half a body.

use std::time::Duration;

use axum::body::HttpBody as _;
use axum::body::{Body, Bytes};
use http_body_util::{BodyExt, LengthLimitError, Limited};

use super::budget::{Held, NoRoom};

/// Why a body was not read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// Declared or found larger than the limit.
    #[error("the body is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// Not all there within the time limit.
    #[error("the body did not arrive whole within {} s", .within.as_secs_f64())]
    TooSlow {
        /// The time limit.
        within: Duration,
    },
    /// The connection broke while it was read.
    #[error("the body could not be read: {0}")]
    Broken(String),
    /// Other requests' bodies held the whole budget for longer than the time limit.
    #[error(
        "omnid is holding {budget_mib} MiB of request bodies, its limit; try again in a moment"
    )]
    Busy {
        /// The budget, in MiB.
        budget_mib: u64,
    },
}

/// The most of a refused body that is read (and thrown away) after the refusal.
const DRAIN_LIMIT: usize = 64 * 1024 * 1024;

/// The whole body, at most `limit` bytes, all there within `within`, with the room it
/// holds in the bodies' budget (see `budget.rs`): keep it while the body's bytes are.
pub async fn read_body(
    body: Body,
    limit: usize,
    within: Duration,
) -> Result<(Bytes, Held), BodyError> {
    let declared = body.size_hint().lower();
    if declared > limit as u64 {
        drain(body, within);
        return Err(BodyError::TooLarge { limit });
    }
    let started = tokio::time::Instant::now();
    let mut held = Held::none();
    held.grow_to(declared, within).await.map_err(busy)?;
    let left = within.saturating_sub(started.elapsed());
    let collected = tokio::time::timeout(left, Limited::new(body, limit).collect()).await;
    let bytes = match collected {
        Err(_) => return Err(BodyError::TooSlow { within }),
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(error)) if error.is::<LengthLimitError>() => {
            return Err(BodyError::TooLarge { limit });
        }
        Ok(Err(error)) => return Err(BodyError::Broken(error.to_string())),
    };
    let left = within.saturating_sub(started.elapsed());
    held.grow_to(bytes.len() as u64, left).await.map_err(busy)?;
    Ok((bytes, held))
}

fn busy(no_room: NoRoom) -> BodyError {
    BodyError::Busy {
        budget_mib: no_room.budget_mib,
    }
}

/// Reads and throws away what a refused body's client goes on sending (up to
/// [`DRAIN_LIMIT`], for at most `within`), while the refusal is written: a client that
/// writes its whole body before it reads the answer then sees the 413 instead of a broken
/// connection.
fn drain(mut body: Body, within: Duration) {
    tokio::spawn(tokio::time::timeout(within, async move {
        let mut seen = 0;
        while let Some(Ok(frame)) = body.frame().await {
            seen += frame.data_ref().map_or(0, Bytes::len);
            if seen > DRAIN_LIMIT {
                break;
            }
        }
    }));
}
