//! The life of a turn: a prompt (or function results, or a retry) is answered in
//! named phases ([`Phase`], kept in order by [`Life`]): *preparing* (`prepare.rs`: the
//! wall seen coming, the context, the body, preflight); perhaps *compacting* first
//! (`compact/`, one summary request per piece); *attempt n at a model*, streaming to the
//! client (`attempts.rs`), and *falling back* to the next model of the chain
//! (`fallback.rs`); and *storing* (`finish.rs`) before the requester hears. Preparing and
//! storing run in the actor between two mailbox commands; the attempts run in a task of
//! their own, the actor staying responsive, as the turn in flight, [`Turn`], whose
//! [`Stage`] says who waits for it.

mod attempts;
mod fallback;
mod finish;
mod phase;
mod prepare;

pub(super) use attempts::SendOutcome;
pub(super) use finish::model_info;
pub(super) use phase::{Life, Phase};

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::context::Context;
use super::requester::Done;
use super::{Actor, Events, Reply};
use crate::provider::RequestBody;
use crate::services::{Endpoint, Live};
use crate::session::outcome::Cancelled;
use crate::session::tree::NodeId;
use attempts::AnswerJob;
use fallback::answer_with_retries;

/// Where a turn in flight is.
pub(in crate::session::actor) enum Stage {
    /// The model chain is asked for the answer; its requester hears through this.
    Answering(Done),
    /// A compaction's summary is being written (before the turn is answered, or on its
    /// own: `omnictl compact`).
    Compacting(Box<super::compact::Compaction>),
}

/// The turn in flight: the node it answers, its stage, its attempts' task, and who waits.
pub(in crate::session::actor) struct Turn {
    /// The node it answers (a compaction's: the head it started at).
    pub(super) turn: NodeId,
    /// Its attempts, in a task of their own.
    pub(super) task: JoinHandle<SendOutcome>,
    /// What it is for, and who hears of its end.
    pub(super) stage: Stage,
    /// When its attempts began.
    pub(super) started: Instant,
    /// The settings this turn started with (a reload does not change them).
    pub(super) live: Arc<Live>,
    /// Stops the attempts: a client's cancel, or shutdown (its parent).
    pub(super) cancel: CancellationToken,
    /// Clients that asked to cancel, answered once the outcome is stored.
    pub(super) cancellers: Vec<Reply<Cancelled>>,
}

/// Resolves when the turn in flight (if any) ends; never, if there is none.
pub(in crate::session::actor) async fn next_outcome(
    inflight: &mut Option<Turn>,
) -> Result<SendOutcome, tokio::task::JoinError> {
    match inflight {
        Some(send) => (&mut send.task).await,
        None => std::future::pending().await,
    }
}

/// A request ready to go.
pub(in crate::session::actor) struct Launch {
    /// The turn it is for (a compaction's: the head it started at).
    pub turn: NodeId,
    /// The settings it starts with.
    pub live: Arc<Live>,
    /// What the request is made of, for any model of the chain.
    pub context: Context,
    /// The models to ask, in order; the body is for the first.
    pub chain: Vec<Endpoint>,
    /// The request body for the first model.
    pub body: RequestBody,
    /// Where its progress goes: the requester and the session's followers.
    pub events: Events,
}

impl Actor {
    /// Runs a request's attempts in their own task; the actor hears of their end through
    /// [`next_outcome`].
    pub(in crate::session::actor) fn launch(&mut self, launch: Launch, stage: Stage) {
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
            life: self.life.clone(),
            attempt: 0,
        };
        self.ctx
            .counters
            .sends_in_flight
            .fetch_add(1, Ordering::Relaxed);
        let task = self.ctx.tracker.spawn(answer_with_retries(job));
        self.inflight = Some(Turn {
            turn,
            task,
            stage,
            started: Instant::now(),
            live,
            cancel,
            cancellers: Vec::new(),
        });
    }
}
