//! What a family of wire formats is to the rest of the daemon: one [`Family`] per folder
//! (`gemini/`, `openai/`, `anthropic/`), found through
//! [`Kind::family`](super::Kind::family). Nothing outside `provider/` needs to know which
//! family it talks to: it asks this trait.

use std::sync::Arc;
use std::time::Duration;

use super::body::RequestBody;
use super::fragment::{Extras, Fragment};
use super::key::ApiKey;
use super::signs::ErrorSigns;
use super::stream::ModelApi;
use crate::model::NodeRecord;

/// Where a client sends, and with what: everything a family needs to build one.
#[derive(Debug, Clone, Copy)]
pub struct Upstream<'a> {
    /// The one HTTP client the daemon shares.
    pub http: &'a reqwest::Client,
    /// Scheme, host, port and path prefix of the provider's API.
    pub base_url: &'a str,
    /// Its key, sent in a header only.
    pub api_key: Option<&'a ApiKey>,
    /// The model asked.
    pub model: &'a str,
    /// Longest wait for the response headers or for the next chunk of the stream.
    pub idle: Duration,
}

/// One family of model APIs: how its providers are configured, reached, described and
/// written to. Implemented once per folder of `provider/`.
pub trait Family: Sync {
    /// Its name in the configuration (`--provider`, `kind = "..."`), and the default
    /// provider's name when it is of this family.
    fn name(&self) -> &'static str;

    /// Where its API is when `--base-url` says nothing.
    fn default_base_url(&self) -> &'static str;

    /// The environment variable that holds the default provider's key when no key file is
    /// named (`OPENAI_API_KEY`); `None` when the key settings alone say where it is.
    fn key_env(&self) -> Option<&'static str> {
        None
    }

    /// Where a key is expected, when a default provider without one deserves a warning at
    /// start (a local server often needs none).
    fn expected_key(&self) -> Option<&'static str> {
        None
    }

    /// Whether its model names may hold a `/` (`meta-llama/llama-3-8b`): then a reference
    /// whose prefix names no provider is a model of the default one, not a mistake.
    fn slash_in_model_names(&self) -> bool;

    /// A client for the model at `upstream`.
    fn client(&self, upstream: Upstream<'_>) -> Arc<dyn ModelApi>;

    /// How an endpoint is named in messages, `status` and its breaker: the client's URL,
    /// with the model added when the URL does not name it.
    fn label(&self, url: &str, model: &str) -> String;

    /// The model a request sent to `base_url` + `path` asks, if its clients send there:
    /// how a recorded request finds its way back (a replay).
    fn model_in_path<'a>(&self, path: &'a str) -> Option<&'a str>;

    /// `node` in its wire format; `previous` is the fragment of the node before it.
    fn fragment(&self, node: &NodeRecord, previous: Option<&Fragment>) -> Fragment;

    /// The request body for `model` from the fragments of its context, in order.
    fn assemble(&self, model: &str, fragments: &[Fragment], extras: Extras<'_>) -> RequestBody;

    /// What it needs done to an answer another provider gave, once that answer's thoughts
    /// and signatures are gone (Gemini marks its first call as made elsewhere).
    fn adopt_foreign(&self, _node: &mut NodeRecord) {}

    /// Whether its API says how many input tokens a model takes (Gemini's model
    /// resource does; OpenAI-compatible servers and Anthropic do not), so a session's
    /// context window can be learned from it.
    fn tells_input_limit(&self) -> bool {
        false
    }

    /// What an error body says in this family's shape (a status's body, or the data of an
    /// error event), for the one classifier.
    fn recognise(&self, body: &str) -> ErrorSigns;
}
