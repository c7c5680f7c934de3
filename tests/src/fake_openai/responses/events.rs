//! An [`Answer`] as the Responses API gives it: streamed as named events
//! (`response.created`, per output item `response.output_item.added`, its deltas and
//! `response.output_item.done`, then `response.completed` with usage), or whole as one
//! `response` object. Reasoning comes first, then the message, then the function calls.

use serde_json::{Value, json};

use crate::fake_openai::Answer;
use crate::fake_wire::sse::frame;

/// One event before numbering: its type and its fields.
type Raw = (&'static str, Value);

/// The `response` object in a state, with these output items and usage.
fn response(model: &str, status: &str, output: Vec<Value>, usage: Value) -> Value {
    json!({"id": "resp_fake", "object": "response", "created_at": 0, "status": status,
           "model": model, "output": output, "usage": usage, "error": null})
}

/// Each output item, whole, and the deltas that stream it.
fn items(answer: &Answer) -> Vec<(Value, Vec<Raw>)> {
    let mut items = Vec::new();
    if !answer.reasoning.is_empty() {
        let deltas = answer.reasoning.iter().map(|piece| {
            (
                "response.reasoning_summary_text.delta",
                json!({"summary_index": 0, "delta": piece}),
            )
        });
        let item = json!({"id": "rs_fake", "type": "reasoning", "encrypted_content": "enc-fake",
                          "summary": [{"type": "summary_text", "text": answer.reasoning.concat()}]});
        items.push((item, deltas.collect()));
    }
    if !answer.text.is_empty() {
        let text = answer.text.concat();
        let mut deltas: Vec<Raw> = vec![(
            "response.content_part.added",
            json!({"content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
        )];
        deltas.extend(answer.text.iter().map(|piece| {
            (
                "response.output_text.delta",
                json!({"content_index": 0, "delta": piece}),
            )
        }));
        deltas.push((
            "response.output_text.done",
            json!({"content_index": 0, "text": text}),
        ));
        let part = json!({"type": "output_text", "text": text, "annotations": []});
        deltas.push((
            "response.content_part.done",
            json!({"content_index": 0, "part": part}),
        ));
        let item = json!({"id": "msg_fake", "type": "message", "status": "completed",
                          "role": "assistant", "content": [part]});
        items.push((item, deltas));
    }
    for (n, (call_id, name, arguments)) in answer.tool_calls.iter().enumerate() {
        let arguments = arguments.to_string();
        let (first, second) = arguments.split_at(crate::fake_openai::script::middle(&arguments));
        let mut deltas: Vec<Raw> = [first, second]
            .iter()
            .map(|piece| {
                (
                    "response.function_call_arguments.delta",
                    json!({"delta": piece}),
                )
            })
            .collect();
        deltas.push((
            "response.function_call_arguments.done",
            json!({"arguments": arguments}),
        ));
        let item = json!({"id": format!("fc_fake_{n}"), "type": "function_call",
                          "status": "completed", "call_id": call_id, "name": name,
                          "arguments": arguments});
        items.push((item, deltas));
    }
    items
}

/// An item as `response.output_item.added` shows it: in progress, nothing streamed yet.
fn in_progress(item: &Value) -> Value {
    let mut item = item.clone();
    match item["type"].as_str() {
        Some("message") => item["content"] = json!([]),
        Some("function_call") => item["arguments"] = json!(""),
        Some("reasoning") => item["summary"] = json!([]),
        _ => {}
    }
    if item.get("status").is_some() {
        item["status"] = json!("in_progress");
    }
    item
}

/// The usage the fake counts: 10 tokens an input item, one an output delta.
fn usage(answer: &Answer, input_items: usize) -> Value {
    let input = 10 * input_items;
    let reasoning = answer.reasoning.len();
    let output = reasoning + answer.text.len() + 2 * answer.tool_calls.len();
    json!({"input_tokens": input, "input_tokens_details": {"cached_tokens": 0},
           "output_tokens": output, "output_tokens_details": {"reasoning_tokens": reasoning},
           "total_tokens": input + output})
}

/// The whole `response` object, as a request without `stream` gets it.
pub(crate) fn whole(answer: &Answer, model: &str, input_items: usize) -> Value {
    let output = items(answer).into_iter().map(|(item, _)| item).collect();
    response(model, "completed", output, usage(answer, input_items))
}

/// The events before `response.completed`: the start, then every item's.
fn body_events(answer: &Answer, model: &str) -> Vec<Raw> {
    let started = response(model, "in_progress", Vec::new(), Value::Null);
    let mut events: Vec<Raw> = vec![
        ("response.created", json!({"response": started})),
        ("response.in_progress", json!({"response": started})),
    ];
    for (index, (item, deltas)) in items(answer).into_iter().enumerate() {
        let id = item["id"].clone();
        events.push((
            "response.output_item.added",
            json!({"output_index": index, "item": in_progress(&item)}),
        ));
        for (kind, mut fields) in deltas {
            fields["item_id"] = id.clone();
            fields["output_index"] = json!(index);
            events.push((kind, fields));
        }
        events.push((
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        ));
    }
    events
}

/// Numbers the events and makes each a named SSE frame carrying its own `type`.
fn frames(events: Vec<Raw>) -> Vec<String> {
    events
        .into_iter()
        .enumerate()
        .map(|(n, (kind, mut fields))| {
            fields["type"] = json!(kind);
            fields["sequence_number"] = json!(n);
            frame(Some(kind), &fields.to_string())
        })
        .collect()
}

/// Every frame of the streamed answer, ending with `response.completed`.
pub(crate) fn stream(answer: &Answer, model: &str, input_items: usize) -> Vec<String> {
    let mut events = body_events(answer, model);
    let done = whole(answer, model, input_items);
    events.push(("response.completed", json!({"response": done})));
    frames(events)
}

/// The first `after` frames of the answer's stream, without its end.
pub(crate) fn cut(answer: &Answer, model: &str, after: usize) -> Vec<String> {
    let events = body_events(answer, model).into_iter().take(after).collect();
    frames(events)
}

/// The first `after` frames, then `response.failed` with this error.
pub(crate) fn failed(
    answer: &Answer,
    model: &str,
    after: usize,
    code: &str,
    message: &str,
) -> Vec<String> {
    let mut events: Vec<Raw> = body_events(answer, model).into_iter().take(after).collect();
    let mut failed = response(model, "failed", Vec::new(), Value::Null);
    failed["error"] = json!({"code": code, "message": message});
    events.push(("response.failed", json!({"response": failed})));
    frames(events)
}

/// A Responses API `error` event, as a frame for [`crate::fake_openai::Reply::Raw`].
pub fn responses_error_event(code: &str, message: &str) -> String {
    let data = json!({"type": "error", "code": code, "message": message, "param": null,
                      "sequence_number": 0});
    frame(Some("error"), &data.to_string())
}
