//! What is written down about a failed attempt, whatever the exchange: where it belongs,
//! what it sent, what came back.

use crate::diag::{AttemptTrace, Cause, Report, ResponseInfo};
use crate::provider::ProviderError;
use crate::resilience::Failure;

/// What diagnostics keep of the response to a failed attempt.
fn response_info(error: Option<&ProviderError>) -> Option<ResponseInfo> {
    match error {
        Some(ProviderError::Status {
            status,
            headers,
            body,
        }) => Some(ResponseInfo {
            status: *status,
            headers: headers.clone(),
            body: body.clone(),
        }),
        Some(ProviderError::InStream { body, .. }) => Some(ResponseInfo {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: body.clone(),
        }),
        _ => None,
    }
}

/// Where a failed attempt belongs and what it sent, for its report.
pub struct Sent<'a> {
    /// The session, if the request belongs to one.
    pub session: Option<uuid::Uuid>,
    /// The node being answered (0 for none).
    pub node: u64,
    /// Where it went.
    pub url: &'a str,
    /// The headers it carried (see [`crate::provider::ModelApi::headers`]).
    pub headers: Vec<(String, String)>,
    /// What it sent.
    pub body: &'a str,
}

/// The diagnostic report of a failed attempt: what an [`Exchange`]'s `report` returns.
pub fn attempt_report(
    sent: Sent<'_>,
    max_attempts: u32,
    attempt: u32,
    failure: &Failure,
    error: Option<&ProviderError>,
    timeline: &[AttemptTrace],
) -> Report {
    Report {
        session: sent.session,
        node: sent.node,
        attempt,
        max_attempts,
        cause: Cause::Attempt {
            phase: failure.phase,
            class: failure.class.clone(),
        },
        message: failure.message.clone(),
        response: response_info(error),
        request_url: sent.url.to_string(),
        request_headers: sent.headers,
        request_body: sent.body.to_string(),
        timeline: timeline.to_vec(),
    }
}
