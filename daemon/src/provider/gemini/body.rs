//! Gemini's request body from fragments: a node's parts as JSON objects, and the body
//! around them, consecutive nodes of one role merged into one content (the API rejects
//! turns that do not alternate; a new prompt after `undo` keeps the old one).

use serde_json::value::RawValue;

use super::parts;
use crate::model::{NodeRecord, PartContent};
use crate::provider::body::{BodyWriter, RequestBody};
use crate::provider::fragment::{Extras, Fragment, WireRole};

/// The signature Gemini accepts on a function call it did not make.
pub const FOREIGN_CALL_SIGNATURE: &str = "skip_thought_signature_validator";

/// Marks an answer another provider gave, its own signatures already removed: Gemini 3
/// wants a signature on the first function call of every answer, so that call carries
/// Google's documented placeholder, which tells it the call came from elsewhere.
pub fn mark_foreign(node: &mut NodeRecord) {
    let first_call = node
        .parts
        .iter_mut()
        .find(|part| matches!(part.content, PartContent::FunctionCall { .. }));
    if let Some(part) = first_call {
        part.thought_signature = Some(FOREIGN_CALL_SIGNATURE.to_string());
    }
}

/// A node's parts as Gemini takes them, separated by commas.
pub fn parts(node: &NodeRecord) -> String {
    let mut out = String::new();
    for part in node.parts.iter().filter_map(parts::to_wire) {
        if !out.is_empty() {
            out.push(',');
        }
        // A part is strings, bools and valid raw JSON: this cannot fail.
        out.push_str(&serde_json::to_string(&part).unwrap_or_default());
    }
    out
}

/// A JSON string literal.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// The body of `streamGenerateContent`.
pub fn assemble(fragments: &[Fragment], extras: Extras<'_>) -> RequestBody {
    let size: usize = fragments.iter().map(|f| f.json.len() + 1).sum();
    let mut out = BodyWriter::with_capacity(size + fragments.len() / 2 * 32 + 256);
    out.push('{');
    if let Some(system) = extras.system {
        out.push_str(r#""systemInstruction":{"parts":[{"text":"#);
        out.push_str(&quoted(system));
        out.push_str("}]},");
    }
    out.push_str(r#""contents":["#);
    let mut open: Option<WireRole> = None;
    let mut empty = true;
    for fragment in fragments {
        if open != Some(fragment.role) {
            if open.is_some() {
                out.push_str("]},");
            }
            out.push_str(r#"{"role":""#);
            out.push_str(fragment.role.as_str());
            out.push_str(r#"","parts":["#);
            (open, empty) = (Some(fragment.role), true);
        }
        if !fragment.json.is_empty() {
            if !empty {
                out.push(',');
            }
            out.push_str(&fragment.json);
            empty = false;
        }
    }
    if open.is_some() {
        out.push_str("]}");
    }
    out.push(']');
    if let Some(tools) = extras
        .tools_json
        .and_then(|text| serde_json::from_str::<&RawValue>(text).ok())
    {
        out.push_str(r#","tools":[{"functionDeclarations":"#);
        out.push_str(tools.get());
        out.push_str("}]");
    }
    if extras.options.include_thoughts {
        out.push_str(r#","generationConfig":{"thinkingConfig":{"includeThoughts":true}}"#);
    }
    out.push('}');
    out.finish()
}
