//! `NewSession`: create an empty session (optionally with tools, its own model and fallback
//! chain, and a system instruction); it becomes the current one.

use omni_proto::{ErrorKind, ErrorReply, SessionCreated};
use serde_json::Value;

use crate::api::dispatch::Handle;
use crate::api::responder::Responder;
use crate::api::state::Daemon;
use crate::session::registry::NewSession;

fn invalid(message: String) -> ErrorReply {
    ErrorReply::new(ErrorKind::InvalidRequest, message)
}

/// Checks function declarations: a JSON array of objects, each with a non-empty `name`.
/// Returns them compacted.
fn validate_tools(json: &str) -> Result<String, ErrorReply> {
    let invalid = |why: String| {
        ErrorReply::new(
            ErrorKind::InvalidRequest,
            format!("the tools file is not usable: {why}"),
        )
    };
    let value: Value =
        serde_json::from_str(json).map_err(|e| invalid(format!("it is not JSON ({e})")))?;
    let Value::Array(declarations) = &value else {
        return Err(invalid(
            "it must be a JSON array of function declarations".into(),
        ));
    };
    if declarations.is_empty() {
        return Err(invalid("the array is empty".into()));
    }
    for (i, declaration) in declarations.iter().enumerate() {
        let named = declaration
            .get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| !n.trim().is_empty());
        if !named {
            return Err(invalid(format!("declaration {} has no \"name\"", i + 1)));
        }
    }
    Ok(value.to_string())
}

/// The longest system instruction a session takes.
const MAX_SYSTEM: usize = 256 * 1024;

/// A model reference as `PROVIDER/MODEL`, or why it names nothing configured.
fn canonical_model(daemon: &Daemon, reference: &str) -> Result<String, ErrorReply> {
    let live = daemon.services.live.get();
    (live.config.provider)
        .canonical(reference)
        .map_err(|error| invalid(error.to_string()))
}

impl Handle for omni_proto::NewSession {
    async fn handle(
        self,
        daemon: &Daemon,
        _: &mut Responder<'_>,
    ) -> Result<SessionCreated, ErrorReply> {
        create(daemon, self).await
    }
}

async fn create(
    daemon: &Daemon,
    asked: omni_proto::NewSession,
) -> Result<SessionCreated, ErrorReply> {
    let tools_json = asked
        .tools_json
        .as_deref()
        .map(validate_tools)
        .transpose()?;
    let model = asked
        .model
        .as_deref()
        .map(|m| canonical_model(daemon, m))
        .transpose()?;
    let fallback = asked
        .fallback
        .iter()
        .map(|m| canonical_model(daemon, m))
        .collect::<Result<Vec<_>, _>>()?;
    let system = asked.system.filter(|s| !s.trim().is_empty());
    if system.as_ref().is_some_and(|s| s.len() > MAX_SYSTEM) {
        return Err(invalid(format!(
            "the system instruction is over {} KiB",
            MAX_SYSTEM / 1024
        )));
    }
    let options = NewSession {
        tools_json,
        model,
        fallback,
        system,
    };
    let record = daemon.sessions.create(options).await?;
    tracing::info!(
        session = %record.id,
        tools = record.tools_json.is_some(),
        model = record.model.as_deref().unwrap_or("(the daemon's)"),
        "session created"
    );
    Ok(SessionCreated {
        session: record.id.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_need_names() {
        assert!(
            validate_tools(r#"[{"name": "get_weather", "parameters": {"type": "object"}}]"#)
                .is_ok()
        );
        for bad in ["{}", "[]", "[{}]", r#"[{"name": ""}]"#, "nope"] {
            assert!(validate_tools(bad).is_err(), "{bad}");
        }
    }
}
