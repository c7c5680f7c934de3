//! `NewSession`: create an empty session (optionally with tools); it becomes the current one.

use omni_proto::{ErrorKind, ErrorReply, Reply};
use serde_json::Value;

use crate::api::state::Daemon;

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

pub async fn handle(daemon: &Daemon, tools_json: Option<String>) -> Result<Reply, ErrorReply> {
    let tools = tools_json.as_deref().map(validate_tools).transpose()?;
    let record = daemon.sessions.create(tools).await?;
    tracing::info!(session = %record.id, tools = record.tools_json.is_some(), "session created");
    Ok(Reply::SessionCreated {
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
