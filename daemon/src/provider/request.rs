//! Building the request body from a model context (the path from the start to the head)
//! in the target provider's format, from one [`Fragment`] per node: a session that holds
//! its context already rendered sends a new turn by rendering only that turn, and a whole
//! context renders the same way ([`body`]).
//!
//! What one provider attached to an answer for itself does not travel to another: an
//! answer from elsewhere goes without its thoughts, thought signatures and raw parts, and
//! its target's family adopts it (Gemini marks its first call as made elsewhere).

use std::borrow::Cow;

use crate::model::{NodeRecord, Part, PartContent, Role};

use super::body::RequestBody;
use super::elide::elided;
use super::fragment::{Extras, Fragment};
use super::kind::Kind;

/// Where a request goes: the provider (by name), its kind, and the model.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The provider's name: an answer it gave keeps what it attached for itself.
    pub provider: &'a str,
    /// Its wire format.
    pub kind: Kind,
    /// The model's name there.
    pub model: &'a str,
    /// Tool results over this many bytes are sent cut (`context.max_tool_result`); 0
    /// never cuts.
    pub max_tool_result: usize,
}

/// How a compaction's summary opens, as the model reads it.
pub const SUMMARY_PREAMBLE: &str = "[The earlier part of this conversation was compacted: \
     the summary below stands for it. The turns after the summary follow as they were.]";

/// A summary as every model sees it: a user turn whose text is the preamble and the
/// summary (the compaction mark stays home).
fn summary_as_prompt(node: &NodeRecord) -> NodeRecord {
    NodeRecord {
        role: Role::User,
        parts: vec![Part::text(format!("{SUMMARY_PREAMBLE}\n\n{}", node.text()))],
        model: None,
        ..node.clone()
    }
}

/// A node as `target` should see it: an answer another provider gave loses its thoughts,
/// signatures and raw parts (each family's own wire JSON: Gemini's code execution,
/// Anthropic's redacted thinking), and is adopted by the target's family; a tool result
/// over the target's limit is cut ([`elided`]). A summary is a prompt. The stored node is
/// never changed.
fn as_seen_by<'a>(node: &'a NodeRecord, target: &Target<'_>) -> Cow<'a, NodeRecord> {
    if node.role == Role::Summary {
        return Cow::Owned(summary_as_prompt(node));
    }
    let foreign = node
        .model
        .as_ref()
        .is_some_and(|info| info.provider != target.provider);
    let mut node = Cow::Borrowed(node);
    if foreign {
        let node = node.to_mut();
        node.parts.retain(|part| {
            !matches!(
                part.content,
                PartContent::Thought(_) | PartContent::Other { .. }
            )
        });
        for part in &mut node.parts {
            part.thought_signature = None;
        }
        target.kind.family().adopt_foreign(node);
    }
    cut_large_results(&mut node, target.max_tool_result);
    node
}

/// Cuts every function response of `node` over `max` bytes, cloning it only then.
fn cut_large_results(node: &mut Cow<'_, NodeRecord>, max: usize) {
    let cuts: Vec<(usize, String)> = node
        .parts
        .iter()
        .enumerate()
        .filter_map(|(index, part)| match &part.content {
            PartContent::FunctionResponse { response_json, .. } => {
                elided(response_json, max).map(|cut| (index, cut))
            }
            _ => None,
        })
        .collect();
    for (index, cut) in cuts {
        if let PartContent::FunctionResponse { response_json, .. } =
            &mut node.to_mut().parts[index].content
        {
            *response_json = cut;
        }
    }
}

/// `node` rendered for `target`; `previous` is the fragment of the node before it.
pub fn fragment(target: &Target<'_>, node: &NodeRecord, previous: Option<&Fragment>) -> Fragment {
    target
        .kind
        .family()
        .fragment(&as_seen_by(node, target), previous)
}

/// Every node of a context rendered for `target`, in order.
pub fn fragments(target: &Target<'_>, context: &[NodeRecord]) -> Vec<Fragment> {
    let mut out: Vec<Fragment> = Vec::with_capacity(context.len());
    for node in context {
        let next = fragment(target, node, out.last());
        out.push(next);
    }
    out
}

/// The request body for `target` from the fragments of its context, in order.
pub fn assemble(target: &Target<'_>, fragments: &[Fragment], extras: Extras<'_>) -> RequestBody {
    target
        .kind
        .family()
        .assemble(target.model, fragments, extras)
}

/// The request body for `target`: the context in its wire format, with the session's
/// function declarations and system instruction.
pub fn body(target: &Target<'_>, context: &[NodeRecord], extras: Extras<'_>) -> RequestBody {
    assemble(target, &fragments(target, context), extras)
}

#[cfg(test)]
mod tests;
