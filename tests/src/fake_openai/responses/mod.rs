//! The Responses API (`POST /v1/responses`) as Codex CLI uses it: its request checks
//! ([`validate`]), its events and whole `response` object ([`events`]), and the default
//! answer to a list of input items.

pub(crate) mod events;
pub(crate) mod validate;

use serde_json::Value;

use super::Answer;
use super::script::Reply;
use crate::fake_wire::sse::Ending;

/// What to write for a reply: a stream of frames and its ending, or a status reply.
pub(crate) enum Written {
    /// A 200 event stream.
    Stream(Vec<String>, Ending),
    /// A status reply (or a reset).
    Plain(Reply),
    /// A 200 event stream held before frame number `.1` until the gate opens.
    Held(Vec<String>, usize, crate::fake_wire::Gate),
}

/// The default answer to `input`: echoes the last message's text (or thanks for the
/// trailing function outputs, by `call_id`) and says how many input items were sent.
pub fn echo(input: &[Value]) -> Answer {
    let outputs: Vec<String> = input
        .iter()
        .rev()
        .take_while(|item| item["type"] == "function_call_output")
        .map(|item| {
            let id = item["call_id"].as_str().unwrap_or_default();
            format!("Tool {id} returned {}", output_text(&item["output"]))
        })
        .collect();
    let heard = if outputs.is_empty() {
        let said = input
            .last()
            .map(|item| output_text(&item["content"]))
            .unwrap_or_default();
        format!("You said: {said}.")
    } else {
        let outputs: Vec<String> = outputs.into_iter().rev().collect();
        format!("Thanks: {}.", outputs.join("; "))
    };
    let count = input.len();
    let text = format!(
        "{heard} I am a fake OpenAI Responses model, and I was sent {count} item{}.",
        if count == 1 { "" } else { "s" }
    );
    Answer::text(text.split_inclusive(' '))
}

/// A content or output as text: a string, or its parts' texts joined.
fn output_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(" / "),
        _ => String::new(),
    }
}

/// What `reply` to a valid request becomes on the wire.
pub(crate) fn written(reply: Reply, valid: &validate::Valid) -> Written {
    let (model, items) = (valid.model.as_str(), valid.input.len());
    let ok = |body: Value| Reply::Status {
        status: 200,
        headers: Vec::new(),
        body: body.to_string(),
    };
    match (reply, valid.stream) {
        (Reply::Answer(answer), true) => {
            Written::Stream(events::stream(&answer, model, items), Ending::Finish)
        }
        (Reply::Answer(answer), false) => Written::Plain(ok(events::whole(&answer, model, items))),
        (Reply::Cut { answer, after }, true) => {
            Written::Stream(events::cut(&answer, model, after), Ending::Finish)
        }
        (Reply::Cut { answer, .. }, false) => {
            let body = events::whole(&answer, model, items).to_string();
            let half = body[..crate::fake_openai::script::middle(&body)].to_string();
            Written::Plain(Reply::Status {
                status: 200,
                headers: Vec::new(),
                body: half,
            })
        }
        (
            Reply::FailAfter {
                answer,
                after,
                code,
                message,
            },
            true,
        ) => Written::Stream(
            events::failed(&answer, model, after, code, &message),
            Ending::Finish,
        ),
        (Reply::FailAfter { code, message, .. }, false) => {
            Written::Plain(Reply::error(500, "server_error", Some(code), &message))
        }
        (Reply::Raw(frames), _) => Written::Stream(frames, Ending::Finish),
        (
            Reply::HoldAfter {
                answer,
                after,
                gate,
            },
            _,
        ) => Written::Held(events::stream(&answer, model, items), after, gate),
        (other @ (Reply::Status { .. } | Reply::Reset), _) => Written::Plain(other),
    }
}
