//! Checking (and, by policy, repairing) the history a client sends before it is forwarded;
//! what was found is written down first.

use axum::body::Bytes;

use super::history;
use crate::config::HistoryPolicy;
use crate::diag::{Cause, Report};
use crate::provider::Redactor;
use crate::proxy::{Proxy, record};
use crate::services::Live;

/// The body to send: as it came, or repaired (`proxy.history = "repair"`). A history the
/// API would reject is written down first, naming the offending contents and what was
/// repaired.
pub async fn checked(
    proxy: &Proxy,
    live: &Live,
    url: &str,
    body: Bytes,
    sent: &history::Sent,
    redactor: &Redactor,
    continues: Option<record::Place>,
) -> Bytes {
    let Some(violation) = history::check(sent) else {
        return body;
    };
    let repaired = match live.config.proxy_history {
        HistoryPolicy::Repair => history::repair(&body),
        HistoryPolicy::Forward => None,
    };
    let what = match &repaired {
        Some((_, changes)) => format!("repaired before forwarding: {}", changes.join("; ")),
        None => "forwarded unchanged (proxy.history = \"forward\")".to_string(),
    };
    let report = Report {
        session: continues.map(|(session, _)| session),
        node: continues.map_or(0, |(_, node)| node),
        attempt: 0,
        max_attempts: live.config.retry.max_attempts,
        cause: Cause::Preflight,
        // The shared rules speak of a session's nodes; here they are the request's contents.
        message: redactor.text(&format!(
            "the history a proxy client sent would be rejected by the API: {} (contents are \
             numbered from 1); {what}",
            violation.reason.replace("node ", "content ")
        )),
        response: None,
        request_url: url.to_string(),
        request_headers: vec![("content-type".to_string(), "application/json".to_string())],
        request_body: String::from_utf8_lossy(&body).into_owned(),
        timeline: Vec::new(),
    };
    tracing::warn!("{}", report.message);
    proxy.services.diag.record(report, &live.diag).await;
    match repaired {
        Some((fixed, _)) => Bytes::from(fixed),
        None => body,
    }
}
