//! How the fakes count a request's tokens, one rule for every API they imitate: a quarter
//! of the characters (rounded up) of every string and number in the conversation the
//! request carries — its texts, the function calls' arguments, the function results, the
//! roles and part types — and in its system instruction. Model names, generation settings
//! and tool declarations are not counted. With a context limit set, a fake refuses a
//! request over it with its API's own error and reports exactly this count as the
//! answer's prompt tokens, so a test can check what Omni recorded against it.

use serde_json::Value;

/// The request fields that hold the conversation, in every API the fakes imitate: Gemini's
/// `contents` and `systemInstruction`, Chat Completions' `messages`, the Responses API's
/// `input` and `instructions`, the Messages API's `messages` and `system`.
const CONVERSATION: &[&str] = &[
    "contents",
    "systemInstruction",
    "system_instruction",
    "messages",
    "input",
    "instructions",
    "system",
];

/// The tokens of a request body by the fakes' rule (see the module's documentation).
pub fn count_tokens(body: &Value) -> u64 {
    let chars: usize = CONVERSATION
        .iter()
        .filter_map(|field| body.get(field))
        .map(chars_in)
        .sum();
    (chars as u64).div_ceil(4)
}

/// The characters of every string and number in `value`, keys left out.
fn chars_in(value: &Value) -> usize {
    match value {
        Value::String(text) => text.chars().count(),
        Value::Number(number) => number.to_string().len(),
        Value::Array(items) => items.iter().map(chars_in).sum(),
        Value::Object(fields) => fields.values().map(chars_in).sum(),
        Value::Null | Value::Bool(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_quarter_of_the_conversation_s_characters_rounded_up() {
        let gemini = json!({"contents": [{"role": "user", "parts": [{"text": "héllo"}]}],
                            "generationConfig": {"temperature": 1}});
        assert_eq!(count_tokens(&gemini), 3, "user + héllo: 9 characters");
        let openai = json!({"model": "gpt-4o", "messages": [
            {"role": "user", "content": "abcd"},
            {"role": "tool", "tool_call_id": "c1", "content": "{\"n\":12}"}]});
        assert_eq!(count_tokens(&openai), (4 + 4 + 4 + 2 + 8_u64).div_ceil(4));
        let anthropic = json!({"system": "be brief", "max_tokens": 100, "messages": []});
        assert_eq!(count_tokens(&anthropic), 2);
        assert_eq!(count_tokens(&json!({})), 0);
    }
}
