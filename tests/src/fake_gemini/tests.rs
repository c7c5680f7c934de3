use serde_json::{Value, json};

use super::{FakeGemini, Reply};
use crate::count_tokens;
use crate::fake_wire::client::{self, Response};

fn post(fake: &FakeGemini, method: &str, body: &Value) -> Response {
    let path = format!("/v1beta/models/fake-model:{method}");
    client::send(&fake.url(), "POST", &path, &[], &body.to_string()).unwrap()
}

fn prompt(text: &str) -> Value {
    json!({"contents": [{"role": "user", "parts": [{"text": text}]}]})
}

#[test]
fn a_request_over_the_context_limit_is_refused_in_gemini_s_words_either_way() {
    let fake = FakeGemini::start().unwrap();
    fake.push([Reply::error(503, "UNAVAILABLE", "scripted")]);
    fake.set_context_limit(Some(10));
    let long = prompt(&"many words ".repeat(10));
    let count = count_tokens(&long);
    for method in ["generateContent", "streamGenerateContent?alt=sse"] {
        let refused = post(&fake, method, &long);
        assert_eq!(refused.status, 400, "{method}");
        assert_eq!(
            refused.json()["error"]["message"],
            format!(
                "The input token count ({count}) exceeds the maximum number of tokens allowed (10)."
            )
        );
        assert_eq!(refused.json()["error"]["status"], "INVALID_ARGUMENT");
    }
    assert_eq!(
        post(&fake, "generateContent", &prompt("hi")).status,
        503,
        "the script was kept"
    );
}

#[test]
fn an_answer_under_the_limit_reports_the_fake_s_count_as_its_prompt() {
    let fake = FakeGemini::start().unwrap();
    fake.set_context_limit(Some(1000));
    let short = prompt("hello there");
    let count = count_tokens(&short);
    let whole = post(&fake, "generateContent", &short).json();
    assert_eq!(whole["usageMetadata"]["promptTokenCount"], count);
    let streamed = post(&fake, "streamGenerateContent?alt=sse", &short);
    // Gemini ends its events with CRLF pairs: each `data:` line is one chunk.
    let mut data = streamed
        .text()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "));
    let last: Value = serde_json::from_str(data.next_back().unwrap()).unwrap();
    assert_eq!(last["usageMetadata"]["promptTokenCount"], count);
    fake.set_context_limit(None);
    let plain = post(&fake, "generateContent", &short).json();
    assert_eq!(
        plain["usageMetadata"]["promptTokenCount"], 8,
        "the fixed count without a limit"
    );
}
