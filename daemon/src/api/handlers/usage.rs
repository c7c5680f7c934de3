//! `Usage`: stored answers' tokens summed per session, model or day, with their cost
//! where the price table knows it.

use omni_proto::{ErrorReply, UsageQuery, UsageReport};

use crate::api::convert::{session_ref, store_error};
use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views;
use crate::usage::{Query, report};

impl Handle for UsageQuery {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<UsageReport, ErrorReply> {
        report_for(daemon, self).await
    }
}

async fn report_for(daemon: &Daemon, asked: UsageQuery) -> Result<UsageReport, ErrorReply> {
    let session = match &asked.session {
        Some(session) => Some(daemon.sessions.resolve(session_ref(session)).await?),
        None => None,
    };
    let query = Query {
        since_ms: asked.since_ms,
        until_ms: None,
        by: asked.by,
        session,
    };
    let rows = report(&daemon.services.store, &query).await.map_err(store_error)?;
    let prices = &daemon.services.live.get().config.prices;
    Ok(views::usage::report(rows, asked.by, asked.since_ms, prices))
}
