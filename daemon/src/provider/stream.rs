//! What every family's stream yields to the rest of the daemon: the [`ModelApi`] a session
//! asks, the neutral [`StreamUpdate`]s it answers with, and the one rule for when a stream
//! that ended cleanly is an answer.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use super::body::RequestBody;
use super::error::ProviderError;
use crate::model::{Part, PartContent, Usage};

/// A model API: a request body in, a stream of updates out. Each family's client is one;
/// the session layer's tests answer through scripted ones.
pub trait ModelApi: Send + Sync {
    /// Where requests go (for the breaker, the logs and diagnostics); never holds a key.
    fn url(&self) -> &str;

    /// The headers each request carries, for diagnostics: the key's header named with
    /// its value left out.
    fn headers(&self) -> Vec<(String, String)> {
        vec![("content-type".into(), "application/json".into())]
    }

    /// Sends `body` and calls `on_update` for every chunk as it arrives. Succeeds only if
    /// the stream ended cleanly with a finish reason and something visible. Errors come
    /// back with every secret removed.
    fn stream<'a>(
        &'a self,
        body: &'a RequestBody,
        on_update: &'a mut (dyn FnMut(StreamUpdate) + Send),
    ) -> BoxFuture<'a, Result<(), ProviderError>>;

    /// How many input tokens the model takes, as its API says (Gemini's model resource,
    /// `inputTokenLimit`); `Ok(None)` where the API does not say. Errors come back with
    /// every secret removed.
    fn input_token_limit(&self) -> BoxFuture<'_, Result<Option<u64>, ProviderError>> {
        async { Ok(None) }.boxed()
    }
}

/// What one chunk of the stream adds to the answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamUpdate {
    /// New parts, in order.
    pub parts: Vec<Part>,
    /// Set on the last chunk.
    pub finish_reason: Option<String>,
    /// Token counts so far (complete on the last chunk).
    pub usage: Option<Usage>,
    /// The model version that answered.
    pub model_version: Option<String>,
}

/// A count the API reports, narrowed to `u32` without wrapping.
pub(crate) fn narrow(count: u64) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// How a stream that ended cleanly ends the answer: it must have finished, with something
/// to show.
pub fn ended(finish_reason: Option<String>, visible: bool) -> Result<(), ProviderError> {
    match finish_reason {
        None => Err(ProviderError::NoFinishReason),
        Some(finish_reason) if !visible => Err(ProviderError::EmptyAnswer { finish_reason }),
        Some(_) => Ok(()),
    }
}

/// Whether a part counts as an answer (a thought alone does not).
pub fn is_visible(part: &Part) -> bool {
    match &part.content {
        PartContent::Text(text) => !text.is_empty(),
        PartContent::Thought(_) | PartContent::Compaction { .. } => false,
        PartContent::FunctionCall { .. }
        | PartContent::FunctionResponse { .. }
        | PartContent::Other { .. } => true,
    }
}
