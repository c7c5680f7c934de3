//! The one client every family's sessions stream through: an [`Endpoint`] (URL, key
//! header, fixed headers) and the family's reader of its events into neutral updates. The
//! loop, the rule for when a clean end is an answer, and the key's removal from whatever
//! the API said are here once.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;

use super::body::RequestBody;
use super::error::ProviderError;
use super::http::Endpoint;
use super::stream::{ModelApi, StreamUpdate, ended, is_visible};

/// What one event of a family's stream is.
pub enum Read {
    /// Content (or a finish) to pass on.
    Update(StreamUpdate),
    /// Nothing (a ping, a kind this version does not read).
    Nothing,
    /// The stream's own end marker (`[DONE]`): nothing follows that matters.
    Done,
}

/// Reads one answer's events, in order (a family may assemble what arrives in fragments).
pub trait ReadEvents: Send {
    /// What the event whose data is `data` adds.
    fn read(&mut self, data: &str) -> Result<Read, ProviderError>;
}

/// Where a family's API describes the model, and how its input limit is read from that
/// description (Gemini's model resource).
pub struct LimitLookup {
    /// The description's URL (never with the key).
    pub url: String,
    /// The input limit the description gives, if it gives one.
    pub read: fn(&str) -> Option<u64>,
}

/// A family's client: where it asks, and how it reads the answer.
pub struct Client {
    endpoint: Endpoint,
    reader: fn() -> Box<dyn ReadEvents>,
    limit: Option<LimitLookup>,
}

impl Client {
    /// Asks `endpoint`, reading each answer with a fresh `reader()`.
    pub fn new(endpoint: Endpoint, reader: fn() -> Box<dyn ReadEvents>) -> Self {
        Self {
            endpoint,
            reader,
            limit: None,
        }
    }

    /// The same client, able to ask the API for the model's input limit.
    pub fn with_limit_lookup(mut self, lookup: LimitLookup) -> Self {
        self.limit = Some(lookup);
        self
    }

    async fn stream_raw(
        &self,
        body: &RequestBody,
        on_update: &mut (dyn FnMut(StreamUpdate) + Send),
    ) -> Result<(), ProviderError> {
        let mut events = self.endpoint.stream(body).await?;
        let mut reader = (self.reader)();
        let (mut visible, mut finish_reason) = (false, None);
        while let Some(data) = events.next_idle().await? {
            let update = match reader.read(&data)? {
                Read::Update(update) => update,
                Read::Nothing => continue,
                Read::Done => break,
            };
            visible |= update.parts.iter().any(is_visible);
            if update.finish_reason.is_some() {
                finish_reason.clone_from(&update.finish_reason);
            }
            on_update(update);
        }
        ended(finish_reason, visible)
    }
}

impl ModelApi for Client {
    /// The endpoint's URL (it never contains the key).
    fn url(&self) -> &str {
        self.endpoint.url()
    }

    fn headers(&self) -> Vec<(String, String)> {
        self.endpoint.headers()
    }

    /// A failure comes back with the key removed from everything the API said.
    fn stream<'a>(
        &'a self,
        body: &'a RequestBody,
        on_update: &'a mut (dyn FnMut(StreamUpdate) + Send),
    ) -> BoxFuture<'a, Result<(), ProviderError>> {
        async move {
            self.stream_raw(body, on_update)
                .await
                .map_err(|error| self.endpoint.redacted(error))
        }
        .boxed()
    }

    /// Asks the model's description, when the family has one, with the endpoint's key.
    fn input_token_limit(&self) -> BoxFuture<'_, Result<Option<u64>, ProviderError>> {
        async move {
            let Some(lookup) = &self.limit else {
                return Ok(None);
            };
            let description = self
                .endpoint
                .get(&lookup.url)
                .await
                .map_err(|error| self.endpoint.redacted(error))?;
            Ok((lookup.read)(&description))
        }
        .boxed()
    }
}
