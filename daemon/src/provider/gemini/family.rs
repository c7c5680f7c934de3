//! Gemini as a family: its configuration name, default URL, client, endpoint label, the
//! paths its client sends to, and its request body.

use std::sync::Arc;

use super::{body, errors};
use crate::model::NodeRecord;
use crate::provider::body::RequestBody;
use crate::provider::family::{Family, Upstream};
use crate::provider::fragment::{Extras, Fragment, WireRole};
use crate::provider::signs::ErrorSigns;
use crate::provider::stream::ModelApi;

/// Google's production endpoint.
pub const BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// Gemini's `models/{model}:streamGenerateContent`.
pub struct GeminiFamily;

impl Family for GeminiFamily {
    fn tells_input_limit(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "gemini"
    }

    fn default_base_url(&self) -> &'static str {
        BASE_URL
    }

    fn expected_key(&self) -> Option<&'static str> {
        Some("GEMINI_API_KEY, api_key_file or the gemini_api_key credential")
    }

    /// Gemini's model names never hold a `/`.
    fn slash_in_model_names(&self) -> bool {
        false
    }

    fn client(&self, upstream: Upstream<'_>) -> Arc<dyn ModelApi> {
        Arc::new(super::client(upstream))
    }

    /// The URL names the model already.
    fn label(&self, url: &str, _model: &str) -> String {
        url.to_string()
    }

    fn model_in_path<'a>(&self, path: &'a str) -> Option<&'a str> {
        path.strip_prefix("/v1beta/models/")?.split(':').next()
    }

    fn fragment(&self, node: &NodeRecord, _previous: Option<&Fragment>) -> Fragment {
        Fragment {
            role: WireRole::of(node.role),
            json: body::parts(node),
            call_ids: Vec::new(),
        }
    }

    fn assemble(&self, _model: &str, fragments: &[Fragment], extras: Extras<'_>) -> RequestBody {
        body::assemble(fragments, extras)
    }

    fn adopt_foreign(&self, node: &mut NodeRecord) {
        body::mark_foreign(node);
    }

    fn recognise(&self, body: &str) -> ErrorSigns {
        errors::recognise(body)
    }
}
