//! Accumulates a streamed answer into the parts that will be stored, and turns each chunk
//! into the events a client sees.

use crate::model::{Part, PartContent, Usage};

use super::outcome::SessionEvent;
use crate::provider::StreamUpdate;

/// The answer so far.
#[derive(Debug, Default)]
pub struct AnswerBuilder {
    /// Parts in arrival order, adjacent text pieces merged (see [`AnswerBuilder::absorb`]).
    pub parts: Vec<Part>,
    /// The finish reason, once seen.
    pub finish_reason: Option<String>,
    /// The latest usage report.
    pub usage: Option<Usage>,
    /// The model version that answered.
    pub model_version: Option<String>,
}

impl AnswerBuilder {
    /// Adds a chunk; returns the events to show the client.
    ///
    /// Streaming splits text into many small parts. Adjacent pieces of the same kind (text
    /// or thought) are merged, except that a piece carrying a `thoughtSignature` is never
    /// merged into another, nor another into it: the signature stays on exactly the part
    /// (and text) it arrived with, as Gemini requires when it is sent back.
    pub fn absorb(&mut self, update: StreamUpdate) -> Vec<SessionEvent> {
        let mut events = Vec::new();
        for part in update.parts {
            match &part.content {
                PartContent::Text(text) if !text.is_empty() => {
                    events.push(SessionEvent::Text(text.clone()))
                }
                PartContent::Thought(text) if !text.is_empty() => {
                    events.push(SessionEvent::Thought(text.clone()))
                }
                PartContent::FunctionCall { .. } => {
                    events.push(SessionEvent::FunctionCall(part.clone()))
                }
                _ => {}
            }
            self.push_part(part);
        }
        if update.finish_reason.is_some() {
            self.finish_reason = update.finish_reason;
        }
        if update.usage.is_some() {
            self.usage = update.usage;
        }
        if update.model_version.is_some() {
            self.model_version = update.model_version;
        }
        events
    }

    fn push_part(&mut self, part: Part) {
        if part.thought_signature.is_none()
            && let Some(last) = self.parts.last_mut()
            && last.thought_signature.is_none()
        {
            match (&mut last.content, &part.content) {
                (PartContent::Text(into), PartContent::Text(more))
                | (PartContent::Thought(into), PartContent::Thought(more)) => {
                    into.push_str(more);
                    return;
                }
                _ => {}
            }
        }
        self.parts.push(part);
    }

    /// True while nothing at all has arrived.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str, signature: Option<&str>) -> Part {
        Part {
            content: PartContent::Text(t.into()),
            thought_signature: signature.map(str::to_string),
        }
    }

    fn update(parts: Vec<Part>) -> StreamUpdate {
        StreamUpdate {
            parts,
            ..StreamUpdate::default()
        }
    }

    #[test]
    fn text_pieces_merge_but_signatures_stay_where_they_arrived() {
        let mut answer = AnswerBuilder::default();
        answer.absorb(update(vec![text("The", None)]));
        answer.absorb(update(vec![text(" answer", None)]));
        let events = answer.absorb(update(vec![text(" is 42", Some("sig"))]));
        answer.absorb(update(vec![text(".", None)]));
        assert_eq!(events, vec![SessionEvent::Text(" is 42".into())]);
        assert_eq!(
            answer.parts,
            vec![
                text("The answer", None),
                text(" is 42", Some("sig")),
                text(".", None)
            ]
        );
    }

    #[test]
    fn thoughts_and_text_do_not_merge() {
        let mut answer = AnswerBuilder::default();
        let thought = Part {
            content: PartContent::Thought("hmm".into()),
            thought_signature: None,
        };
        let events = answer.absorb(update(vec![thought.clone(), text("ok", None)]));
        assert_eq!(
            events,
            vec![
                SessionEvent::Thought("hmm".into()),
                SessionEvent::Text("ok".into())
            ]
        );
        assert_eq!(answer.parts, vec![thought, text("ok", None)]);
    }
}
