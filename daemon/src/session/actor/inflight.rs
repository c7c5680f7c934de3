//! A request in flight: what it is for (an answer, or a compaction's summary), and how
//! it starts: its attempts in a task of their own, the actor staying responsive.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::attempts::{AnswerJob, SendOutcome};
use super::context::Context;
use super::fallback::answer_with_retries;
use super::requester::Done;
use super::{Actor, Events, Reply};
use crate::provider::RequestBody;
use crate::services::{Endpoint, Live};
use crate::session::outcome::Cancelled;
use crate::session::tree::NodeId;

/// What a request in flight is for.
pub(super) enum Purpose {
    /// Answering a turn; its requester hears through this.
    Answer(Done),
    /// Writing a compaction's summary.
    Compact(Box<super::compact::Compaction>),
}

pub(super) struct InFlight {
    pub(super) turn: NodeId,
    pub(super) task: JoinHandle<SendOutcome>,
    pub(super) purpose: Purpose,
    pub(super) started: Instant,
    /// The settings this send started with (a reload does not change them).
    pub(super) live: Arc<Live>,
    /// Stops the attempts: a client's cancel, or shutdown (its parent).
    pub(super) cancel: CancellationToken,
    /// Clients that asked to cancel, answered once the outcome is stored.
    pub(super) cancellers: Vec<Reply<Cancelled>>,
}

/// Resolves when the in-flight send (if any) ends; never, if there is none.
pub(super) async fn next_outcome(
    inflight: &mut Option<InFlight>,
) -> Result<SendOutcome, tokio::task::JoinError> {
    match inflight {
        Some(send) => (&mut send.task).await,
        None => std::future::pending().await,
    }
}

/// A request ready to go.
pub(super) struct Launch {
    /// The turn it is for (a compaction's: the head it started at).
    pub turn: NodeId,
    /// The settings it starts with.
    pub live: Arc<Live>,
    pub context: Context,
    /// The models to ask, in order; the body is for the first.
    pub chain: Vec<Endpoint>,
    pub body: RequestBody,
    pub events: Events,
}

impl Actor {
    /// Runs a request's attempts in their own task; the actor hears of their end through
    /// [`next_outcome`].
    pub(super) fn launch(&mut self, launch: Launch, purpose: Purpose) {
        let Launch {
            turn,
            live,
            context,
            chain,
            body,
            events,
        } = launch;
        let cancel = self.ctx.shutdown.child_token();
        let job = AnswerJob {
            live: live.clone(),
            diag: self.ctx.diag.clone(),
            session: self.record.id,
            turn,
            context,
            endpoint: chain[0].clone(),
            chain,
            body,
            events,
            cancel: cancel.clone(),
            streamed_partial: false,
        };
        self.ctx
            .counters
            .sends_in_flight
            .fetch_add(1, Ordering::Relaxed);
        let task = self.ctx.tracker.spawn(answer_with_retries(job));
        self.inflight = Some(InFlight {
            turn,
            task,
            purpose,
            started: Instant::now(),
            live,
            cancel,
            cancellers: Vec::new(),
        });
    }
}
