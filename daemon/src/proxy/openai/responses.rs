//! The Responses API's stream (as Codex CLI reads it) into neutral content: text and
//! reasoning summaries as they arrive, a function call once its item is done, the
//! finish with `response.completed` (or `response.incomplete`); `response.failed` and
//! `error` fail the stream, so the core retries it. Each event's type and output index
//! (and a call's argument fragment) are what a retried stream must repeat.

use serde_json::Value;

use crate::model::{Part, PartContent, Usage};
use crate::provider::stream::narrow;
use crate::provider::{ProviderError, StreamUpdate};
use crate::proxy::api::{Event, Read, ReadEvents};

/// A Responses stream's reader; it keeps nothing between events.
pub struct ResponseEvents;

impl ReadEvents for ResponseEvents {
    fn read(&mut self, event: &Event) -> Result<Option<Read>, ProviderError> {
        let value: Value = serde_json::from_str(&event.data).map_err(|e| {
            ProviderError::BrokenStream(format!("an event is not valid JSON ({e})"))
        })?;
        let kind = value["type"].as_str().unwrap_or_default();
        let mut update = StreamUpdate::default();
        match kind {
            "response.output_text.delta" => push(&mut update, PartContent::Text, &value["delta"]),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                push(&mut update, PartContent::Thought, &value["delta"])
            }
            "response.output_item.done" if value["item"]["type"] == "function_call" => {
                let item = &value["item"];
                update.parts.push(Part::from(PartContent::FunctionCall {
                    id: item["call_id"].as_str().map(str::to_string),
                    name: item["name"].as_str().unwrap_or_default().to_string(),
                    args_json: item["arguments"].as_str().unwrap_or("{}").to_string(),
                }));
            }
            "response.completed" | "response.incomplete" => {
                let response = &value["response"];
                update.finish_reason = Some(
                    response["status"]
                        .as_str()
                        .unwrap_or(kind.trim_start_matches("response."))
                        .to_string(),
                );
                update.usage = usage(&response["usage"]);
                update.model_version = response["model"].as_str().map(str::to_string);
            }
            "response.failed" | "error" => {
                let error = if kind == "error" {
                    &value
                } else {
                    &value["response"]["error"]
                };
                let message = error["message"].as_str().unwrap_or(&event.data).to_string();
                return Err(ProviderError::InStream {
                    message,
                    body: event.data.clone(),
                });
            }
            _ => {}
        }
        let mark = format!(
            "{kind} {} {}",
            value["output_index"],
            if kind == "response.function_call_arguments.delta" {
                value["delta"].as_str().unwrap_or_default()
            } else {
                ""
            }
        );
        Ok(Some(Read { update, mark }))
    }
}

fn push(update: &mut StreamUpdate, kind: fn(String) -> PartContent, text: &Value) {
    if let Some(text) = text.as_str().filter(|t| !t.is_empty()) {
        update.parts.push(Part::from(kind(text.to_string())));
    }
}

fn usage(usage: &Value) -> Option<Usage> {
    let count = |name: &str| narrow(usage[name].as_u64().unwrap_or(0));
    // The output counts reasoning too; Omni keeps the two apart.
    let reasoning = usage["output_tokens_details"]["reasoning_tokens"]
        .as_u64()
        .unwrap_or(0);
    let output = usage["output_tokens"].as_u64().unwrap_or(0);
    usage.is_object().then(|| Usage {
        prompt_tokens: count("input_tokens"),
        answer_tokens: narrow(output.saturating_sub(reasoning)),
        thought_tokens: narrow(reasoning),
        total_tokens: count("total_tokens"),
        cached_tokens: narrow(
            usage["input_tokens_details"]["cached_tokens"]
                .as_u64()
                .unwrap_or(0),
        ),
    })
}
