//! The chat-completions stream, one `chat.completion.chunk` at a time, into neutral
//! updates. Text and reasoning pass through as they arrive; a tool call arrives in
//! fragments (its id and name first, then its arguments in pieces, calls told apart by
//! `index`) and becomes one function-call part once the choice finishes.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::model::{Part, PartContent, Usage};
use crate::provider::error::ProviderError;
use crate::provider::stream::{StreamUpdate, narrow};

/// One `chat.completion.chunk`.
#[derive(Debug, Default, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<UsageIn>,
    model: Option<String>,
    error: Option<ErrorIn>,
}

#[derive(Debug, Default, Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Delta,
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Delta {
    content: Option<String>,
    /// DeepSeek, vLLM and llama.cpp's name for reasoning text.
    reasoning_content: Option<String>,
    /// Ollama's and OpenRouter's name for it.
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Vec<CallDelta>,
}

#[derive(Debug, Default, Deserialize)]
struct CallDelta {
    index: Option<u32>,
    id: Option<String>,
    #[serde(default)]
    function: FunctionDelta,
}

#[derive(Debug, Default, Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct UsageIn {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    total_tokens: u64,
    completion_tokens_details: Option<CompletionDetails>,
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Debug, Default, Deserialize)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: u64,
}

#[derive(Debug, Default, Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: u64,
}

#[derive(Debug, Default, Deserialize)]
struct ErrorIn {
    message: Option<String>,
}

/// A call being assembled.
#[derive(Debug, Default)]
struct Call {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// What the stream has told so far.
#[derive(Debug, Default)]
pub struct Assembler {
    calls: BTreeMap<u32, Call>,
}

impl Assembler {
    /// Reads one event's data; returns what it adds to the answer.
    pub fn absorb(&mut self, data: &str) -> Result<StreamUpdate, ProviderError> {
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            ProviderError::BrokenStream(format!("a chunk is not a valid completion chunk ({e})"))
        })?;
        if let Some(error) = chunk.error {
            return Err(ProviderError::InStream {
                message: error.message.unwrap_or_else(|| data.to_string()),
                body: data.to_string(),
            });
        }
        let mut update = StreamUpdate {
            model_version: chunk.model,
            usage: chunk.usage.map(|u| {
                // OpenAI counts reasoning inside the completion; Omni keeps them apart.
                let reasoning = u
                    .completion_tokens_details
                    .map_or(0, |d| d.reasoning_tokens);
                Usage {
                    prompt_tokens: narrow(u.prompt_tokens),
                    answer_tokens: narrow(u.completion_tokens.saturating_sub(reasoning)),
                    thought_tokens: narrow(reasoning),
                    total_tokens: narrow(u.total_tokens),
                    cached_tokens: narrow(u.prompt_tokens_details.map_or(0, |d| d.cached_tokens)),
                }
            }),
            ..StreamUpdate::default()
        };
        // Servers send one choice (n = 1); any other is ignored, as Gemini's candidates are.
        if let Some(choice) = chunk.choices.into_iter().next() {
            let delta = choice.delta;
            if let Some(thought) = delta.reasoning_content.or(delta.reasoning)
                && !thought.is_empty()
            {
                update.parts.push(part(PartContent::Thought(thought)));
            }
            if let Some(text) = delta.content
                && !text.is_empty()
            {
                update.parts.push(part(PartContent::Text(text)));
            }
            for (position, call) in delta.tool_calls.into_iter().enumerate() {
                self.add_fragment(position, call);
            }
            if let Some(reason) = choice.finish_reason {
                update.parts.extend(self.take_calls());
                update.finish_reason = Some(reason);
            }
        }
        Ok(update)
    }

    /// Adds a fragment to its call: `index` says which (a server that sends whole calls
    /// without one gives them in order).
    fn add_fragment(&mut self, position: usize, fragment: CallDelta) {
        let index = fragment
            .index
            .unwrap_or_else(|| u32::try_from(position).unwrap_or(u32::MAX));
        let call = self.calls.entry(index).or_default();
        if fragment.id.is_some() {
            call.id = fragment.id;
        }
        if let Some(name) = fragment.function.name {
            call.name.push_str(&name);
        }
        if let Some(arguments) = fragment.function.arguments {
            call.arguments.push_str(&arguments);
        }
    }

    /// The assembled calls, in index order.
    fn take_calls(&mut self) -> Vec<Part> {
        std::mem::take(&mut self.calls)
            .into_values()
            .map(|call| {
                let args_json = if call.arguments.trim().is_empty() {
                    "{}".to_string()
                } else {
                    call.arguments
                };
                part(PartContent::FunctionCall {
                    id: call.id,
                    name: call.name,
                    args_json,
                })
            })
            .collect()
    }
}

fn part(content: PartContent) -> Part {
    Part {
        content,
        thought_signature: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_are_assembled_by_index_from_interleaved_fragments() {
        let mut assembler = Assembler::default();
        let chunks = [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}"#,
        ];
        for chunk in chunks {
            assert!(assembler.absorb(chunk).unwrap().parts.is_empty());
        }
        let last = assembler
            .absorb(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#)
            .unwrap();
        assert_eq!(last.finish_reason.as_deref(), Some("tool_calls"));
        let calls: Vec<_> = last.parts.iter().map(|p| p.content.clone()).collect();
        assert_eq!(
            calls,
            [
                PartContent::FunctionCall {
                    id: Some("call_a".into()),
                    name: "get_weather".into(),
                    args_json: r#"{"city":"Paris"}"#.into(),
                },
                PartContent::FunctionCall {
                    id: Some("call_b".into()),
                    name: "get_time".into(),
                    args_json: "{}".into(),
                },
            ]
        );
    }

    #[test]
    fn text_reasoning_and_usage_are_read() {
        let mut assembler = Assembler::default();
        let update = assembler
            .absorb(r#"{"model":"qwen","choices":[{"index":0,"delta":{"reasoning_content":"hmm","content":"Hi"},"finish_reason":"stop"}]}"#)
            .unwrap();
        let parts: Vec<_> = update.parts.iter().map(|p| p.content.clone()).collect();
        assert_eq!(
            parts,
            [
                PartContent::Thought("hmm".into()),
                PartContent::Text("Hi".into())
            ]
        );
        assert_eq!(update.model_version.as_deref(), Some("qwen"));
        assert_eq!(update.finish_reason.as_deref(), Some("stop"));
        let usage = assembler
            .absorb(r#"{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}"#)
            .unwrap()
            .usage
            .unwrap();
        assert_eq!((usage.prompt_tokens, usage.total_tokens), (7, 9));
    }

    #[test]
    fn an_error_inside_the_stream_is_a_failure() {
        let error = Assembler::default()
            .absorb(r#"{"error":{"message":"model overloaded","code":503}}"#)
            .unwrap_err();
        assert!(
            matches!(error, ProviderError::InStream { ref message, .. } if message == "model overloaded")
        );
    }
}
