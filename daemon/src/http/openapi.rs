//! The API's OpenAPI 3.1 document, generated from [`routes::all`] and from the protocol's own
//! types (their JSON Schemas derived from the very structs the API serializes). It is
//! checked in as `docs/openapi.json`; a test fails when the two differ.

use omni_proto::{
    Answer, BranchList, Compacted, DaemonStatus, ErrorKind, ErrorSummary, ExportedSession,
    HistoryView, ImportOutcome, MoveOutcome, PendingCall, Recovered, ReplayOutcome, SearchResults,
    SessionSummary, TreeShape, UsageReport,
};
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use super::input::object;
use super::route::{Answer as How, Route};
use super::routes;

/// Where the document is served.
pub const OPENAPI_PATH: &str = "/v1/openapi.json";

/// The event names a stream may carry, besides the final `result` or `error`.
const EVENTS: &str = "prompt_stored, text, thought, function_call, retrying, compacting, \
    compacted; when following (`/events`): attached, answered, failed, moved, recovered, \
    resumed, tool_result_stored, missed";

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// Schemas of the protocol's types, and of the small objects the API wraps them in.
fn components() -> Map<String, Value> {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    let mut generator: SchemaGenerator = settings.into_generator();
    generator.subschema_for::<DaemonStatus>();
    generator.subschema_for::<SessionSummary>();
    generator.subschema_for::<HistoryView>();
    generator.subschema_for::<TreeShape>();
    generator.subschema_for::<BranchList>();
    generator.subschema_for::<Answer>();
    generator.subschema_for::<MoveOutcome>();
    generator.subschema_for::<Recovered>();
    generator.subschema_for::<ReplayOutcome>();
    generator.subschema_for::<ErrorSummary>();
    generator.subschema_for::<PendingCall>();
    generator.subschema_for::<UsageReport>();
    generator.subschema_for::<ExportedSession>();
    generator.subschema_for::<ImportOutcome>();
    generator.subschema_for::<SearchResults>();
    generator.subschema_for::<Compacted>();
    let kind = generator.subschema_for::<ErrorKind>();
    let mut schemas = generator.take_definitions(true);
    let wrappers = [
        (
            "SessionList",
            object(
                json!({
                    "sessions": {"type": "array", "items": reference("SessionSummary")},
                    "next_before": {
                        "type": ["string", "null"],
                        "description": "when more sessions may match: the `before` of the next page (the last session's place, `MS.ID`)"
                    }
                }),
                &["sessions", "next_before"],
            ),
        ),
        (
            "SessionCreated",
            object(json!({"session": {"type": "string"}}), &["session"]),
        ),
        (
            "Cancelled",
            object(
                json!({"session": {"type": "string"}, "turn": {"type": "integer"}, "kept": {"type": ["integer", "null"], "description": "The interrupted node holding the partial answer, out of the context"}}),
                &["session", "turn", "kept"],
            ),
        ),
        (
            "Purged",
            object(
                json!({"session": {"type": "string"}, "title": {"type": "string"}, "nodes": {"type": "integer", "description": "Nodes erased"}, "records": {"type": "integer", "description": "Diagnostic records erased"}}),
                &["session", "title", "nodes", "records"],
            ),
        ),
        (
            "ToolResultStored",
            object(
                json!({"session": {"type": "string"}, "calls": {"type": "array", "items": reference("PendingCall")}}),
                &["session", "calls"],
            ),
        ),
        (
            "ToolOutcome",
            json!({"oneOf": [reference("Answer"), reference("ToolResultStored")]}),
        ),
        (
            "RecoverOutcome",
            json!({"oneOf": [reference("Recovered"), reference("Answer")]}),
        ),
        (
            "Resumed",
            object(
                json!({"session": {"type": "string"}, "was_suspended": {"type": "boolean"}}),
                &["session", "was_suspended"],
            ),
        ),
        (
            "ErrorList",
            object(
                json!({"errors": {"type": "array", "items": reference("ErrorSummary")}}),
                &["errors"],
            ),
        ),
        (
            "Error",
            object(
                json!({"error": object(json!({"kind": kind, "message": {"type": "string"}, "options": {"type": "array", "items": {"type": "string"}, "description": "With needs_recovery: the recovery actions"}}), &["kind", "message"])}),
                &["error"],
            ),
        ),
    ];
    for (name, schema) in wrappers {
        schemas.insert(name.to_string(), schema);
    }
    schemas
}

fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

fn responses(route: &Route) -> Value {
    let reply = reference(route.reply);
    let ok = match route.answer {
        How::Json(status) => {
            json!({status.to_string(): {"description": "Done", "content": json_content(reply)}})
        }
        How::Streams => {
            json!({"200": {"description": format!("Server-sent events ({EVENTS}), then one `result` (the JSON below) or `error` event; with `Accept: application/json`, the result alone"), "content": {"text/event-stream": {"schema": {"type": "string"}}, "application/json": {"schema": reply}}}})
        }
        How::Follows => {
            json!({"200": {"description": format!("Server-sent events until the client disconnects: first `attached` (the session's summary, below), then {EVENTS}"), "content": {"text/event-stream": {"schema": {"type": "string"}}}}})
        }
        How::Download => {
            json!({"200": {"description": "A file: the diagnostic bundle (JSON), or a session's export (Markdown, JSON: the ExportedSession schema, or JSON lines)", "content": {"application/json": {"schema": {"type": "object"}}, "text/markdown": {"schema": {"type": "string"}}, "application/x-ndjson": {"schema": {"type": "string"}}}}})
        }
    };
    let mut all = ok.as_object().cloned().unwrap_or_default();
    let error = json!({"description": "Failed: 400 invalid request, 401 no or wrong token (TCP), 404 not found, 409 busy, wrong state, needs recovery or cancelled, 413 body too large, 423 suspended, 502 the model API failed, 503 shutting down, 507 the store cannot write", "content": json_content(reference("Error"))});
    all.insert("default".into(), error);
    Value::Object(all)
}

fn operation(route: &Route) -> Value {
    let mut parameters = Vec::new();
    for (name, description) in [
        ("id", "A session id, a unique prefix, or `current`"),
        ("eid", "A recorded error's id"),
    ] {
        if route.path.contains(&format!("{{{name}}}")) {
            parameters.push(json!({"name": name, "in": "path", "required": true, "description": description, "schema": {"type": "string"}}));
        }
    }
    for (name, description) in route.query {
        parameters.push(json!({"name": name, "in": "query", "required": false, "description": description, "schema": {"type": "string"}}));
    }
    let mut operation =
        json!({"summary": route.summary, "parameters": parameters, "responses": responses(route)});
    if let Some(body) = route.body {
        operation["requestBody"] = json!({"required": true, "content": json_content(body())});
    }
    operation
}

/// The whole document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for route in routes::all() {
        let entry = paths.entry(route.path).or_insert_with(|| json!({}));
        entry[route.method.to_ascii_lowercase()] = operation(route);
    }
    paths.insert(
        OPENAPI_PATH.into(),
        json!({"get": {"summary": "This API's OpenAPI 3.1 document", "parameters": [], "responses": {"200": {"description": "This document", "content": json_content(json!({"type": "object"}))}}}}),
    );
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "omnid HTTP API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Durable, undoable, self-healing LLM chat sessions. Served on `api.sock` beside omnid's control socket, and with `--http-listen` on loopback TCP, where every request needs `Authorization: Bearer TOKEN`."
        },
        "paths": paths,
        "components": {
            "schemas": components(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "Required on TCP only; the token is in omnid's api.token file"}}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/openapi.json` is this document; `OMNI_WRITE_OPENAPI=1 cargo test openapi`
    /// writes it after a change to the API.
    #[test]
    fn the_checked_in_openapi_document_is_the_generated_one() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json");
        let generated = format!("{}\n", serde_json::to_string_pretty(&document()).unwrap());
        if std::env::var_os("OMNI_WRITE_OPENAPI").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "docs/openapi.json differs from the API the code serves; run \
             `OMNI_WRITE_OPENAPI=1 cargo test -p omnid openapi` and commit the result"
        );
    }

    #[test]
    fn every_route_is_documented_with_its_reply_schema() {
        let document = document();
        let schemas = &document["components"]["schemas"];
        for route in routes::all() {
            let method = route.method.to_ascii_lowercase();
            assert!(
                document["paths"][route.path][&method].is_object(),
                "{method} {}",
                route.path
            );
            if !route.reply.is_empty() {
                assert!(
                    schemas[route.reply].is_object(),
                    "{} has no schema",
                    route.reply
                );
            }
        }
    }
}
