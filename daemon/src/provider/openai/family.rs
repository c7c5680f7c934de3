//! OpenAI-compatible servers as a family: their configuration name, OpenAI's own URL and
//! key variable, the client, the endpoint label, the one path the client sends to, and the
//! request body.

use std::sync::Arc;

use super::{errors, render};
use crate::model::NodeRecord;
use crate::provider::body::RequestBody;
use crate::provider::family::{Family, Upstream};
use crate::provider::fragment::{Extras, Fragment, WireRole};
use crate::provider::signs::ErrorSigns;
use crate::provider::stream::ModelApi;

/// OpenAI's own API, for `--provider openai` without `--base-url`.
pub const BASE_URL: &str = "https://api.openai.com/v1";

/// OpenAI's `chat/completions`, and every server that copies it.
pub struct OpenAiFamily;

impl Family for OpenAiFamily {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn default_base_url(&self) -> &'static str {
        BASE_URL
    }

    /// A key file named by the settings comes first (`GEMINI_API_KEY` and the Gemini
    /// credential are Gemini's own).
    fn key_env(&self) -> Option<&'static str> {
        Some("OPENAI_API_KEY")
    }

    /// Servers that host models of many makers name them `maker/model`.
    fn slash_in_model_names(&self) -> bool {
        true
    }

    fn client(&self, upstream: Upstream<'_>) -> Arc<dyn ModelApi> {
        Arc::new(super::client(upstream))
    }

    /// The URL does not name the model, so the label adds it.
    fn label(&self, url: &str, model: &str) -> String {
        format!("{url} (model {model})")
    }

    /// The model travels in the body: a replay asks whichever the body names.
    fn model_in_path<'a>(&self, path: &'a str) -> Option<&'a str> {
        (path == "/chat/completions").then_some("")
    }

    fn fragment(&self, node: &NodeRecord, previous: Option<&Fragment>) -> Fragment {
        let earlier = previous.map_or(&[][..], |p| &p.call_ids[..]);
        let (json, call_ids) = render::fragment(node, earlier);
        Fragment {
            role: WireRole::of(node.role),
            json,
            call_ids,
        }
    }

    fn assemble(&self, model: &str, fragments: &[Fragment], extras: Extras<'_>) -> RequestBody {
        render::assemble(model, fragments, extras)
    }

    fn recognise(&self, body: &str) -> ErrorSigns {
        errors::recognise(body)
    }
}
