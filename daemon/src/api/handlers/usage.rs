//! `Usage`: stored answers' tokens summed per session, model or day, with their cost
//! where the price table knows it.

use omni_proto::{ErrorReply, Reply, SessionRef, UsageGrouping};

use crate::api::convert::{session_ref, store_error};
use crate::api::state::Daemon;
use crate::api::views;
use crate::usage::{Query, report};

/// What `omnictl usage` asked.
pub struct Asked {
    /// Only answers from this time on.
    pub since_ms: Option<u64>,
    /// One row per session, model or day.
    pub by: UsageGrouping,
    /// Only this session's.
    pub session: Option<SessionRef>,
}

pub fn handle(daemon: &Daemon, asked: Asked) -> Result<Reply, ErrorReply> {
    let session = match &asked.session {
        Some(session) => Some(daemon.sessions.resolve(session_ref(session))?),
        None => None,
    };
    let query = Query {
        since_ms: asked.since_ms,
        until_ms: None,
        by: asked.by,
        session,
    };
    let rows = report(&daemon.services.store, &query).map_err(store_error)?;
    let prices = &daemon.services.live.get().config.prices;
    Ok(Reply::Usage(views::usage::report(
        rows,
        asked.by,
        asked.since_ms,
        prices,
    )))
}
