//! Situations several end-to-end tests start from.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::fake_gemini::{Answer, Gate, Reply};
use crate::harness::{CtlOutput, Omni};

/// The API's complaint when function calls and responses do not match.
pub const MISMATCH: &str = "Please ensure that the number of function response parts is equal to \
                            the number of function call parts of the function call turn.";

/// A 503 the way Gemini sends it when the model is overloaded.
pub fn overloaded() -> Reply {
    Reply::error(
        503,
        "UNAVAILABLE",
        "The model is overloaded. Please try again later.",
    )
}

/// The `retrying` events among `omnictl --json` lines.
pub fn retries(lines: &[Value]) -> Vec<&Value> {
    lines.iter().filter(|l| l["event"] == "retrying").collect()
}

/// Writes a tools file declaring `get_weather` and `get_time`; returns its path.
pub fn tools_file(omni: &Omni) -> PathBuf {
    let path = omni.dir().join("tools.json");
    let declarations = json!([
        {"name": "get_weather", "description": "The weather in a city",
         "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        {"name": "get_time", "description": "The time in a time zone",
         "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}
    ]);
    std::fs::write(&path, declarations.to_string()).expect("write the tools file");
    path
}

/// A new tools session in which the model calls `get_weather` (id c1) for `prompt`, and
/// the API rejects the result with a mismatched-parts 400: node 1 is the prompt, node 2 the
/// call, node 3 the result (the head). Returns the session's id and the failed
/// `tool-result` command's output.
pub fn poisoned_by_a_400(omni: &Omni, prompt: &str) -> (String, CtlOutput) {
    let tools = tools_file(omni);
    let new = omni
        .ctl(&["--json", "new", "--tools", &tools.display().to_string()])
        .ok();
    let session = new.json()["session"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (session, poison_the_current_session(omni, prompt))
}

/// The same round in the current session: `prompt`, the call, its result rejected with a
/// mismatched-parts 400. Returns the failed `tool-result` command's output.
pub fn poison_the_current_session(omni: &Omni, prompt: &str) -> CtlOutput {
    omni.fake().push([
        Reply::Answer(Answer::calls([(
            "get_weather",
            json!({"city": "Paris"}),
            Some("c1"),
        )])),
        Reply::error(400, "INVALID_ARGUMENT", MISMATCH),
    ]);
    omni.ctl(&["send", prompt]).ok();
    omni.ctl(&["tool-result", "get_weather", r#"{"output": 21}"#])
}

/// The next answer streams "partial " and "answer ", then holds until the returned gate
/// opens: a slow answer to cancel, follow or walk away from.
pub fn held_answer(omni: &Omni) -> Gate {
    let gate = Gate::new();
    omni.fake().push([Reply::HoldAfter {
        chunks: 2,
        gate: gate.clone(),
        answer: Answer::text(["partial ", "answer ", "never finished"]),
    }]);
    gate
}
