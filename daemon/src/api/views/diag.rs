//! What clients see of the diagnostic records, in the wire protocol's types: the list of
//! failures, and how a replay of one ended.

use omni_proto::{ErrorSummary, ReplayOutcome};

use crate::diag::ErrorRecord;

/// A failure as `logs list` shows it.
pub fn error_summary(record: ErrorRecord) -> ErrorSummary {
    ErrorSummary {
        id: record.id,
        time: record.time,
        session: record.session,
        class: record.class,
        message: record.message,
    }
}

/// A replay of `record` that succeeded: how the answer begins.
pub fn replay_succeeded(record: ErrorRecord, beginning: &str) -> ReplayOutcome {
    ReplayOutcome {
        error: record.id,
        still_fails: false,
        class: None,
        summary: format!("the request succeeds now; the answer begins: {beginning}"),
    }
}

/// A replay of `record` that failed again: its class and (redacted) message.
pub fn replay_failed(record: ErrorRecord, class: &str, message: String) -> ReplayOutcome {
    ReplayOutcome {
        error: record.id,
        still_fails: true,
        class: Some(class.to_string()),
        summary: message,
    }
}
