//! The API's OpenAPI 3.1 document, generated from [`routes::all`] and from the protocol's own
//! types (their JSON Schemas derived from the very structs the API serializes). It is
//! checked in as `docs/openapi.json`; a test fails when the two differ.

use omni_proto::ErrorKind;
use schemars::Schema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use super::route::{Answer as How, Route};
use super::routes;

/// Where the document is served.
pub const OPENAPI_PATH: &str = "/v1/openapi.json";

/// The event names a stream may carry, besides the final `result` or `error`.
const EVENTS: &str = "prompt_stored, text, thought, function_call, retrying, compacting, \
    compacted; when following (`/events`): attached, answered, failed, moved, recovered, \
    resumed, tool_result_stored, missed";

/// Schemas as the document keeps them: each named type once, under
/// `#/components/schemas`.
fn generator(settings: SchemaSettings) -> SchemaGenerator {
    let mut settings = settings;
    settings.definitions_path = "/components/schemas".into();
    settings.into_generator()
}

/// The schemas of what the API reads (bodies, as serde reads them: a field with a
/// default may be left out) and of what it writes (replies, as serde writes them: every
/// field is there, `null` when empty).
struct Generators {
    reads: SchemaGenerator,
    writes: SchemaGenerator,
}

impl Generators {
    fn new() -> Self {
        Self {
            reads: generator(SchemaSettings::draft2020_12().for_deserialize()),
            writes: generator(SchemaSettings::draft2020_12().for_serialize()),
        }
    }

    /// Every named schema, once: a type both read and written shows its written schema
    /// (every field there), and the names of those whose read schema is not that one
    /// with fewer fields required (a test holds there are none).
    fn definitions(mut self) -> (Map<String, Value>, Vec<String>) {
        let mut schemas = self.writes.take_definitions(true);
        let mut differing = Vec::new();
        for (name, read) in self.reads.take_definitions(true) {
            let written = schemas.entry(name.clone()).or_insert_with(|| read.clone());
            if !reads_what_is_written(&read, written) {
                differing.push(name);
            }
        }
        (schemas, differing)
    }
}

/// Whether a type's read schema is its written one but for which fields are required
/// (serde's defaults let a reader leave out fields a writer always writes).
fn reads_what_is_written(read: &Value, written: &Value) -> bool {
    fn shape(schema: &Value) -> Value {
        match schema {
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .filter(|(name, _)| *name != "required")
                    .map(|(name, field)| (name.clone(), shape(field)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
            other => other.clone(),
        }
    }
    shape(read) == shape(written)
}

/// Schemas written out whole, for reading a route's fields.
fn inline_generator() -> SchemaGenerator {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.into_generator()
}

/// The route's query parameters, from its query type: each property one parameter, with
/// its description and schema (a parameter is absent rather than null).
fn query_parameters(route: &Route) -> Vec<Value> {
    let mut generator = inline_generator();
    let Some(query) = route.takes.query(&mut generator).map(Schema::to_value) else {
        return Vec::new();
    };
    let required = query["required"].as_array().cloned().unwrap_or_default();
    let properties = query["properties"].as_object().cloned().unwrap_or_default();
    properties
        .into_iter()
        .map(|(name, mut schema)| {
            let fields = schema.as_object_mut();
            let description = fields.and_then(|fields| {
                if fields.get("default").is_some_and(Value::is_null) {
                    fields.remove("default");
                }
                fields.remove("description")
            });
            if let Some(types) = schema["type"].as_array() {
                let present: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                schema["type"] = present.first().cloned().unwrap_or(Value::Null);
            }
            let required = required.contains(&Value::String(name.clone()));
            json!({"name": name, "in": "query", "required": required, "description": description.unwrap_or(Value::Null), "schema": schema})
        })
        .collect()
}

/// The error every route may answer with: `{"error": {"kind", "message", "options"?}}`.
fn error_schema(generator: &mut SchemaGenerator) -> Value {
    let kind = generator.subschema_for::<ErrorKind>().to_value();
    let error = object(
        json!({"kind": kind, "message": {"type": "string"}, "options": {"type": "array", "items": {"type": "string"}, "description": "With needs_recovery: the recovery actions"}}),
        &["kind", "message"],
    );
    object(json!({ "error": error }), &["error"])
}

/// Descriptions as single paragraphs: a doc comment's line breaks are where the source
/// wrapped it, not the text's.
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                match field {
                    Value::String(text) if name == "description" => {
                        *text = text
                            .replace("\n\n", "\u{0}")
                            .replace('\n', " ")
                            .replace('\u{0}', "\n\n")
                            .replace("[`", "`")
                            .replace("`]", "`");
                    }
                    other => unwrap_descriptions(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// A JSON Schema object with these properties.
fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn json_content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

fn responses(route: &Route, generator: &mut SchemaGenerator) -> Value {
    let mut reply = || route.takes.reply(generator).to_value();
    let ok = match route.answer {
        How::Json(status) => {
            json!({status.to_string(): {"description": "Done", "content": json_content(reply())}})
        }
        How::Streams => {
            json!({"200": {"description": format!("Server-sent events ({EVENTS}), then one `result` (the JSON below) or `error` event; with `Accept: application/json`, the result alone"), "content": {"text/event-stream": {"schema": {"type": "string"}}, "application/json": {"schema": reply()}}}})
        }
        How::Follows => {
            json!({"200": {"description": format!("Server-sent events until the client disconnects: first `attached` (the session's summary, below), then {EVENTS}"), "content": {"text/event-stream": {"schema": {"type": "string"}}}}})
        }
        How::Download => {
            json!({"200": {"description": "A file: the diagnostic bundle (JSON), or a session's export (Markdown, JSON: the ExportedSession schema, or JSON lines)", "content": {"application/json": {"schema": {"type": "object"}}, "text/markdown": {"schema": {"type": "string"}}, "application/x-ndjson": {"schema": {"type": "string"}}}}})
        }
    };
    let mut all = ok.as_object().cloned().unwrap_or_default();
    let error = json!({"description": "Failed: 400 invalid request, 401 no or wrong token (TCP), 404 not found, 409 busy, wrong state, needs recovery or cancelled, 413 body too large, 423 suspended, 502 the model API failed, 503 shutting down, 507 the store cannot write", "content": json_content(json!({"$ref": "#/components/schemas/Error"}))});
    all.insert("default".into(), error);
    Value::Object(all)
}

fn operation(route: &Route, generators: &mut Generators) -> Value {
    let mut parameters = Vec::new();
    for (name, description) in [
        ("id", "A session id, a unique prefix, or `current`"),
        ("eid", "A recorded error's id"),
    ] {
        if route.path.contains(&format!("{{{name}}}")) {
            parameters.push(json!({"name": name, "in": "path", "required": true, "description": description, "schema": {"type": "string"}}));
        }
    }
    parameters.extend(query_parameters(route));
    let responses = responses(route, &mut generators.writes);
    let mut operation =
        json!({"summary": route.summary, "parameters": parameters, "responses": responses});
    if let Some(body) = route.takes.body(&mut generators.reads) {
        let content = json_content(body.to_value());
        operation["requestBody"] = json!({"required": true, "content": content});
    }
    operation
}

/// The whole document.
pub fn document() -> Value {
    let mut generators = Generators::new();
    let mut paths = Map::new();
    for route in routes::all() {
        let entry = paths.entry(route.path).or_insert_with(|| json!({}));
        entry[route.method.to_ascii_lowercase()] = operation(route, &mut generators);
    }
    let error = error_schema(&mut generators.writes);
    let (mut schemas, _differing) = generators.definitions();
    schemas.insert("Error".into(), error);
    for schema in schemas.values_mut() {
        unwrap_descriptions(schema);
    }
    for operation in paths.values_mut() {
        unwrap_descriptions(operation);
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
            "schemas": schemas,
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
    fn what_omnid_writes_of_a_type_it_reads_back() {
        let mut generators = Generators::new();
        for route in routes::all() {
            operation(route, &mut generators);
        }
        let (_, differing) = generators.definitions();
        assert!(differing.is_empty(), "{differing:?}");
    }

    #[test]
    fn every_route_is_documented_and_every_reference_resolves() {
        let document = document();
        for route in routes::all() {
            let method = route.method.to_ascii_lowercase();
            assert!(
                document["paths"][route.path][&method].is_object(),
                "{method} {}",
                route.path
            );
        }
        let text = document.to_string();
        let schemas = &document["components"]["schemas"];
        for piece in text.split("\"#/components/schemas/").skip(1) {
            let name = piece.split('"').next().unwrap_or_default();
            assert!(
                schemas[name].is_object() || schemas[name].is_boolean(),
                "{name} is not defined"
            );
        }
    }
}
