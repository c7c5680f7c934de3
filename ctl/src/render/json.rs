//! `--json` errors; events and replies have their JSON form in `omni_proto::json`, shared
//! with the daemon's HTTP API.

use serde_json::{Value, json};

/// An error as a JSON object (also printed to stderr as a sentence). Errors of omnictl's
/// own (no daemon kind) are of kind `client`.
pub fn error(kind: Option<omni_proto::ErrorKind>, message: &str) -> Value {
    match kind {
        Some(kind) => omni_proto::json::error(&omni_proto::ErrorReply::new(kind, message)),
        None => json!({"error": {"kind": "client", "message": message}}),
    }
}
