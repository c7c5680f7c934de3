//! What one route of the HTTP API is: its method, path, summary, query parameters and how
//! it answers, and what it takes: the protocol request it becomes, made from the path, the
//! query and a body read by serde into its own type. The schemas of the body and of the
//! reply are derived from those types. The tables (`routes.rs`, `session_routes.rs`,
//! `history_routes.rs`) are lists of these.

use omni_proto::{Call, ErrorReply, Request};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;

use super::input::{Input, invalid};

/// How a route answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// The reply as one JSON object, with this status on success.
    Json(u16),
    /// Server-sent events, then one final `result` or `error` event; with `Accept:
    /// application/json`, the final result alone as JSON.
    Streams,
    /// Server-sent events until the client disconnects (attach).
    Follows,
    /// The bundle's bytes as a file download.
    Download,
}

/// One route of the API.
pub struct Route {
    /// `GET`, `PUT` or `POST`.
    pub method: &'static str,
    /// The path, with `{id}` or `{eid}` where they go.
    pub path: &'static str,
    /// What it does, for the OpenAPI document.
    pub summary: &'static str,
    /// How it answers.
    pub answer: Answer,
    /// The request it becomes, and the types of its body and reply.
    pub takes: &'static dyn Takes,
}

impl Route {
    /// The fields its body takes, from its body type; `None` when it takes no body.
    pub fn body_fields(&self) -> Option<Vec<String>> {
        let mut settings = schemars::generate::SchemaSettings::draft2020_12();
        settings.inline_subschemas = true;
        let schema = self.takes.body(&mut settings.into_generator())?;
        let fields = schema.as_value()["properties"].as_object();
        Some(
            fields
                .map(|f| f.keys().cloned().collect())
                .unwrap_or_default(),
        )
    }
}

/// What a route takes and makes: the protocol request, and the JSON Schemas of its body
/// and of the request's reply, derived from their types.
pub trait Takes: Sync {
    /// The request the path, query and body make, or why they make none.
    fn build(&self, input: &Input) -> Result<Request, ErrorReply>;
    /// The body's schema; `None` when the route takes no body.
    fn body(&self, generator: &mut SchemaGenerator) -> Option<Schema>;
    /// The query parameters' schema (an object, each parameter a property); `None` when
    /// the route takes none.
    fn query(&self, _generator: &mut SchemaGenerator) -> Option<Schema> {
        None
    }
    /// The reply's schema (a reference to a component).
    fn reply(&self, generator: &mut SchemaGenerator) -> Schema;
}

/// A route whose request comes from its path and query alone.
pub struct Plain<C>(pub fn(&Input) -> Result<C, ErrorReply>);

/// A route whose request also takes query parameters, read into `Q`.
pub struct WithQuery<Q, C>(pub fn(&Input, Q) -> Result<C, ErrorReply>);

/// A route whose request also takes a JSON body, read into `B`.
pub struct WithBody<B, C>(pub fn(&Input, B) -> Result<C, ErrorReply>);

impl<C> Takes for Plain<C>
where
    C: Call,
    C::Reply: JsonSchema,
{
    fn build(&self, input: &Input) -> Result<Request, ErrorReply> {
        (self.0)(input).map(Into::into)
    }

    fn body(&self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    fn reply(&self, generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<C::Reply>()
    }
}

impl<Q, C> Takes for WithQuery<Q, C>
where
    Q: DeserializeOwned + JsonSchema,
    C: Call,
    C::Reply: JsonSchema,
{
    fn build(&self, input: &Input) -> Result<Request, ErrorReply> {
        let query = read_query::<Q>(input)?;
        (self.0)(input, query).map(Into::into)
    }

    fn body(&self, _: &mut SchemaGenerator) -> Option<Schema> {
        None
    }

    fn query(&self, generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(generator.root_schema_for::<Q>())
    }

    fn reply(&self, generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<C::Reply>()
    }
}

impl<B, C> Takes for WithBody<B, C>
where
    B: DeserializeOwned + JsonSchema,
    C: Call,
    C::Reply: JsonSchema,
{
    fn build(&self, input: &Input) -> Result<Request, ErrorReply> {
        let body = read::<B>(input)?;
        (self.0)(input, body).map(Into::into)
    }

    fn body(&self, generator: &mut SchemaGenerator) -> Option<Schema> {
        Some(generator.subschema_for::<B>())
    }

    fn reply(&self, generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<C::Reply>()
    }
}

/// The query parameters as `Q`, refused naming the one that does not fit.
fn read_query<Q: DeserializeOwned>(input: &Input) -> Result<Q, ErrorReply> {
    let fields = input
        .query
        .iter()
        .map(|(name, value)| (name.clone(), serde_json::Value::String(value.clone())))
        .collect();
    let query = serde_json::Value::Object(fields);
    serde_path_to_error::deserialize(&query).map_err(|error| {
        let path = error.path().to_string();
        invalid(format!("?{path}= {}", error.into_inner()))
    })
}

/// The body as `B`, refused naming the field that does not fit (no body reads as `{}`).
fn read<B: DeserializeOwned>(input: &Input) -> Result<B, ErrorReply> {
    let empty = serde_json::Value::Object(Default::default());
    let body = if input.body.is_null() {
        &empty
    } else {
        &input.body
    };
    serde_path_to_error::deserialize(body).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if path == "." {
            invalid(format!("the body does not fit: {inner}"))
        } else {
            invalid(format!("\"{path}\": {inner}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::http::bodies::{CheckoutBody, SendBody};

    fn input(body: serde_json::Value) -> Input {
        Input {
            session: None,
            error_id: None,
            query: Default::default(),
            body,
        }
    }

    #[test]
    fn a_body_that_does_not_fit_its_type_is_refused_naming_the_field() {
        let wrong = read::<SendBody>(&input(json!({"prompt": "hi", "replace": "yes"})));
        let why = wrong.expect_err("a string is not a bool").message;
        assert!(why.starts_with("\"replace\": invalid type"), "{why}");
        let negative = read::<CheckoutBody>(&input(json!({"node": -1})));
        assert!(negative.expect_err("refused").message.contains("\"node\""));
        let missing = read::<SendBody>(&input(serde_json::Value::Null));
        let why = missing.expect_err("no prompt").message;
        assert!(why.contains("missing field `prompt`"), "{why}");
        let fits = read::<SendBody>(&input(json!({"prompt": "hi"}))).expect("fits");
        assert_eq!((fits.prompt.as_str(), fits.replace), ("hi", None));
        let null = read::<SendBody>(&input(json!({"prompt": "hi", "replace": null})));
        assert_eq!(null.expect("null is no choice, as before").replace, None);
    }
}
