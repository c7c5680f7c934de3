//! Anthropic as a family: its configuration name, its URL and key variable, the client,
//! the endpoint label, the one path the client sends to, and the request body.

use std::sync::Arc;

use super::{errors, render};
use crate::model::NodeRecord;
use crate::provider::body::RequestBody;
use crate::provider::family::{Family, Upstream};
use crate::provider::fragment::{Extras, Fragment};
use crate::provider::signs::ErrorSigns;
use crate::provider::stream::ModelApi;

/// Anthropic's own API, for `--provider anthropic` without `--base-url` (without `/v1`,
/// as `ANTHROPIC_BASE_URL` is written).
pub const BASE_URL: &str = "https://api.anthropic.com";

/// The path the client sends to, below the base URL.
const MESSAGES: &str = "/v1/messages";

/// Anthropic's Messages API.
pub struct AnthropicFamily;

impl Family for AnthropicFamily {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn default_base_url(&self) -> &'static str {
        BASE_URL
    }

    /// A key file named by the settings comes first (`GEMINI_API_KEY` and the Gemini
    /// credential are Gemini's own).
    fn key_env(&self) -> Option<&'static str> {
        Some("ANTHROPIC_API_KEY")
    }

    fn expected_key(&self) -> Option<&'static str> {
        Some("ANTHROPIC_API_KEY or api_key_file")
    }

    /// Claude models' names never hold a `/`.
    fn slash_in_model_names(&self) -> bool {
        false
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
        (path == MESSAGES).then_some("")
    }

    fn fragment(&self, node: &NodeRecord, previous: Option<&Fragment>) -> Fragment {
        render::fragment(node, previous.map_or(&[][..], |p| &p.call_ids[..]))
    }

    fn assemble(&self, model: &str, fragments: &[Fragment], extras: Extras<'_>) -> RequestBody {
        render::assemble(model, fragments, extras)
    }

    fn recognise(&self, body: &str) -> ErrorSigns {
        errors::recognise(body)
    }
}
