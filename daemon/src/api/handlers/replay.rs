//! `Replay`: send a recorded failing request again, exactly as recorded, with the current
//! key, and say whether it still fails. No session is touched and nothing is logged.

use std::time::{Duration, SystemTime};

use omni_proto::{ErrorKind, ErrorReply, Replay, ReplayOutcome};

use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::api::views;
use crate::model::visible_text;
use crate::resilience::classify;
use crate::session::answer::AnswerBuilder;
use crate::text::first_line;

impl Handle for Replay {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<ReplayOutcome, ErrorReply> {
        replay(daemon, &self.error).await
    }
}

async fn replay(daemon: &Daemon, error: &str) -> Result<ReplayOutcome, ErrorReply> {
    let services = &daemon.services;
    let live = services.live.get();
    let record = services
        .diag
        .find(error)
        .await
        .map_err(|m| ErrorReply::new(ErrorKind::NotFound, m))?;
    let api = live.api_for_url(&record.request.url).ok_or_else(|| {
        ErrorReply::new(
            ErrorKind::InvalidRequest,
            format!(
                "no configured provider serves {}, where the recorded request went",
                record.request.url
            ),
        )
    })?;
    let mut answer = AnswerBuilder::default();
    let outcome = api
        .stream(
            &record.request.body.text().to_string().into(),
            &mut |update| {
                answer.absorb(update);
            },
        )
        .await;
    let replayed = match outcome {
        Ok(()) => {
            views::diag::replay_succeeded(record, &first_line(&visible_text(&answer.parts), 100))
        }
        Err(failure) => {
            let failure = classify(
                &failure,
                Duration::from_secs(u64::MAX / 4),
                SystemTime::now(),
            );
            let message = live.diag.redactor.text(&failure.message);
            views::diag::replay_failed(record, failure.class.name(), message)
        }
    };
    Ok(replayed)
}
