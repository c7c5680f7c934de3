//! Whole OpenAI answers as the events their streams would have carried (see
//! `proxy/whole.rs`): a chat completion is one chunk whose delta is the message, a
//! response is its output items' deltas and done items, then `response.completed`.

use serde_json::{Value, json};

use crate::proxy::api::Event;

/// A `chat.completion` as its one `chat.completion.chunk`.
pub fn chat(mut completion: Value) -> Vec<Event> {
    if let Some(choices) = completion["choices"].as_array_mut() {
        for choice in choices {
            let message = choice["message"].take();
            choice["delta"] = message;
        }
    }
    vec![Event::data(completion.to_string())]
}

/// A `response` as the events of its stream that carry content.
pub fn response(response: Value) -> Vec<Event> {
    let mut events = Vec::new();
    let delta = |kind: &str, index: usize, text: &Value| {
        let data = json!({"type": kind, "output_index": index, "delta": text});
        Event::data(data.to_string())
    };
    let items = response["output"].as_array().cloned().unwrap_or_default();
    for (index, item) in items.into_iter().enumerate() {
        match item["type"].as_str().unwrap_or_default() {
            "message" => {
                for text in texts(&item["content"], "output_text") {
                    events.push(delta("response.output_text.delta", index, text));
                }
            }
            "reasoning" => {
                for text in texts(&item["summary"], "summary_text") {
                    events.push(delta("response.reasoning_summary_text.delta", index, text));
                }
                for text in texts(&item["content"], "reasoning_text") {
                    events.push(delta("response.reasoning_text.delta", index, text));
                }
            }
            "function_call" => {
                let data = json!({"type": "response.output_item.done", "output_index": index, "item": item});
                events.push(Event::data(data.to_string()));
            }
            _ => {}
        }
    }
    let done = json!({"type": "response.completed", "response": response});
    events.push(Event::data(done.to_string()));
    events
}

/// The texts of a list's entries of type `kind`.
fn texts<'a>(list: &'a Value, kind: &str) -> Vec<&'a Value> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter(|entry| entry["type"] == kind)
        .map(|entry| &entry["text"])
        .collect()
}
