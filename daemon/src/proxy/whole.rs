//! A whole answer (a request without `stream`) read as neutral content, to record it: the
//! API replays it as the events its stream would have carried (`Api::whole_events`) and
//! its own stream reader reads them, so an answer is recorded alike whichever way it came,
//! and a conversation may go on either way.

use super::api::Api;
use crate::provider::ProviderError;
use crate::session::answer::AnswerBuilder;

/// The answer a whole response's body holds, as a session would store it.
pub fn read(api: &dyn Api, body: &[u8]) -> Result<AnswerBuilder, ProviderError> {
    let answer: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| ProviderError::BrokenStream(format!("the answer is not valid JSON ({e})")))?;
    let mut reader = api.reader();
    let mut built = AnswerBuilder::default();
    for event in api.whole_events(answer) {
        if let Some(read) = reader.read(&event)? {
            built.absorb(read.update);
        }
    }
    Ok(built)
}
