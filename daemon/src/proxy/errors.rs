//! Errors in the Gemini API's own shape (`{"error": {"code", "message", "status"}}`), so a
//! Gemini client reports them as it would the API's.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::listeners::BodyError;

/// The error object's JSON text.
pub fn body(code: StatusCode, status: &str, message: &str) -> String {
    json!({"error": {"code": code.as_u16(), "message": message, "status": status}}).to_string()
}

/// An error response.
pub fn response(code: StatusCode, status: &str, message: &str) -> Response {
    (
        code,
        [(header::CONTENT_TYPE, "application/json; charset=UTF-8")],
        body(code, status, message),
    )
        .into_response()
}

/// A path the API does not have.
pub fn not_found(path: &str) -> Response {
    response(
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        &format!("{path} is not a method of the Gemini API that omnid's proxy serves"),
    )
}

/// A request whose body could not be read: too large (413), too slow (408), or cut off.
pub fn unread_body(error: &BodyError) -> Response {
    let code = match error {
        BodyError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        BodyError::TooSlow { .. } => StatusCode::REQUEST_TIMEOUT,
        BodyError::Broken(_) => StatusCode::BAD_REQUEST,
    };
    response(code, "INVALID_ARGUMENT", &format!("omnid: {error}"))
}
