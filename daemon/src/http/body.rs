//! A request's JSON body: read within the size and time limits, parsed, and held to the
//! route's schema's fields, so a mistyped optional field is refused rather than ignored.

use std::collections::HashMap;
use std::sync::LazyLock;

use axum::body::Body;
use axum::http::StatusCode;
use omni_proto::{ErrorReply, MAX_FRAME_LEN};
use serde_json::Value;

use super::input::invalid;
use super::route::Route;
use crate::listeners::{BodyError, read_body};

/// The body as JSON: nothing is `null`; anything else must be a JSON object whose fields
/// the route takes. A refusal carries its status: 400, 408 for a body that did not arrive
/// in time, 413 for one over the limit (refused before it is read when it says so).
pub async fn json(
    route: &Route,
    body: Body,
    within: std::time::Duration,
) -> Result<Value, (StatusCode, ErrorReply)> {
    let (bytes, _held) = read_body(body, MAX_FRAME_LEN, within)
        .await
        .map_err(|error| {
            let status = match error {
                BodyError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
                BodyError::TooSlow { .. } => StatusCode::REQUEST_TIMEOUT,
                BodyError::Broken(_) => StatusCode::BAD_REQUEST,
                BodyError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
            };
            (status, invalid(error.to_string()))
        })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    let bad = |why: String| (StatusCode::BAD_REQUEST, invalid(why));
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(fields)) => match unknown_field(route, &fields) {
            Some(why) => Err(bad(why)),
            None => Ok(Value::Object(fields)),
        },
        Ok(_) => Err(bad("the body must be a JSON object".into())),
        Err(error) => Err(bad(format!("the body is not JSON: {error}"))),
    }
}

/// The fields each route's body takes, worked out from the body types once (not on every
/// request).
static KNOWN: LazyLock<HashMap<(&str, &str), Vec<String>>> = LazyLock::new(|| {
    super::routes::all()
        .map(|route| {
            let fields = route.body_fields().unwrap_or_default();
            ((route.method, route.path), fields)
        })
        .collect()
});

/// The fields `route`'s body takes (none for a route without a body).
fn known_fields(route: &Route) -> &'static [String] {
    KNOWN
        .get(&(route.method, route.path))
        .map_or(&[], Vec::as_slice)
}

/// Says which field of `fields` the route does not take, and which it does.
fn unknown_field(route: &Route, fields: &serde_json::Map<String, Value>) -> Option<String> {
    let known = known_fields(route);
    let field = fields.keys().find(|field| !known.contains(*field))?;
    let takes = if known.is_empty() {
        "it takes no body".to_string()
    } else {
        let names: Vec<String> = known.iter().map(|name| format!("\"{name}\"")).collect();
        format!("it takes {}", names.join(", "))
    };
    Some(format!(
        "unknown field \"{field}\" in the body of {} {}; {takes}",
        route.method, route.path
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(method: &str, path: &str) -> &'static Route {
        crate::http::routes::all()
            .find(|r| r.method == method && r.path == path)
            .expect("a route")
    }

    fn fields(json: &str) -> serde_json::Map<String, Value> {
        serde_json::from_str(json).expect("an object")
    }

    #[test]
    fn an_unknown_field_is_named_and_known_ones_pass() {
        let new = route("POST", "/v1/sessions");
        let why = unknown_field(new, &fields(r#"{"model": "m", "fallbak": []}"#));
        let why = why.expect("refused");
        assert!(why.contains("unknown field \"fallbak\""), "{why}");
        assert!(why.contains("\"fallback\""), "{why}");
        assert_eq!(
            unknown_field(new, &fields(r#"{"model": "m", "fallback": []}"#)),
            None
        );
        let undo = route("POST", "/v1/sessions/{id}/undo");
        let why = unknown_field(undo, &fields(r#"{"steps": 2}"#)).expect("refused");
        assert!(why.contains("it takes no body"), "{why}");
    }
}
