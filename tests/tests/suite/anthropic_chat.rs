//! `omnictl chat` with a Claude model, at a real terminal: a conversation with a tool
//! call, answered by a fake Anthropic API that validates requests as the real one does.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::claude::{last_entry, messages, on_anthropic};
use omni_tests::fake_anthropic::{Answer, FakeAnthropic, Reply};
use omni_tests::scenario::tools_file;
use serde_json::json;

#[test]
fn omnictl_chat_with_a_claude_model_holds_a_conversation_with_a_tool_call() {
    let server = FakeAnthropic::start().unwrap();
    let omni = on_anthropic(&server, &[]);
    let tools = tools_file(&omni);
    let new = omni
        .ctl(&["--json", "new", "--tools", tools.to_str().unwrap()])
        .ok()
        .json();
    let id = new["session"].as_str().unwrap().to_string();
    server.push([Reply::Answer(Answer::text(["Checking."]).with_tool_uses([
        ("toolu_t", "get_weather", json!({"city": "Paris"})),
    ]))]);
    let mut chat = omni.ctl_in_terminal(
        &["chat", "-s", &id, "--model", "anthropic/claude-sonnet-4-5"],
        &[("NO_COLOR", "1")],
    );
    chat.expect("Ctrl-D leaves");
    chat.expect("model: anthropic/claude-sonnet-4-5");
    chat.send("weather in Paris?\r");
    chat.expect("type each result as JSON");
    chat.expect("get_weather");
    chat.send("{\"temp_c\": 21}\r");
    chat.expect("Tool toolu_t returned");
    chat.expect("› ");
    chat.send("thanks\r");
    chat.expect("You said: thanks.");
    chat.expect("› ");
    chat.send("\x04");
    assert_eq!(chat.wait(), 0);

    let sent = messages(&server, 2);
    assert_eq!(sent.len(), 5, "{sent:?}");
    assert_eq!(sent[2]["content"][0]["tool_use_id"], "toolu_t");
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.json()["model"] == "claude-sonnet-4-5")
    );
    let last = last_entry(&omni);
    assert_eq!(
        (&last["model"]["provider"], &last["model"]["model"]),
        (&json!("anthropic"), &json!("claude-sonnet-4-5"))
    );
}
