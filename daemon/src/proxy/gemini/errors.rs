//! Errors in the Gemini API's own shape (`{"error": {"code", "message", "status"}}`), so a
//! Gemini client reports them as it would the API's.

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use super::GEMINI;
use crate::proxy::api::error_response;

/// The content type of the API's JSON answers.
pub const JSON: &str = "application/json; charset=UTF-8";

/// The error object's JSON text; its `status` is the one Google's APIs give for `code`.
pub fn body(code: StatusCode, message: &str) -> String {
    let status = match code.as_u16() {
        400 | 408 | 413 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        501 => "UNIMPLEMENTED",
        502 | 503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "INTERNAL",
    };
    json!({"error": {"code": code.as_u16(), "message": message, "status": status}}).to_string()
}

/// A path the API does not have.
pub fn not_found(path: &str) -> Response {
    error_response(
        &GEMINI,
        StatusCode::NOT_FOUND,
        &format!("{path} is not a method of the Gemini API that omnid's proxy serves"),
    )
}
