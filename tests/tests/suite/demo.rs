//! The demo model's tags, end to end against `omnid --demo`: each shows one of Omni's
//! behaviours with no key and no network, as the README's quick start and the chat's
//! `/help` say.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use serde_json::Value;

fn demo() -> Omni {
    Omni::builder()
        .args(&["--demo", "--retry-initial-delay-ms", "10"])
        .start()
}

#[test]
fn the_chat_help_lists_every_demo_tag() {
    let omni = demo();
    let out = omni.ctl_with_stdin(&["chat"], Some("/help\n")).ok();
    for demo in omni_proto::DEMO_TAGS {
        assert!(out.stdout.contains(demo.tag), "{}", out.stdout);
        assert!(out.stdout.contains(demo.shows), "{}", out.stdout);
    }
}

#[test]
fn a_tool_tag_makes_the_model_call_a_function_and_the_chat_ask_for_its_result() {
    let omni = demo();
    let out = omni
        .ctl_with_stdin(
            &["chat"],
            Some("what is the weather? [demo:tool]\n{\"temp\": 18}\n"),
        )
        .ok();
    assert!(
        out.stdout.contains("get_weather") && out.stdout.contains("Paris"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("Thanks: get_weather returned"),
        "the result went back to the model: {}",
        out.stdout
    );
    let history = omni.ctl(&["--json", "history"]).ok().json();
    let roles: Vec<&str> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model", "tool", "model"]);
}

#[test]
fn a_think_tag_streams_thoughts_before_the_answer() {
    let omni = demo();
    omni.new_session();
    let events = omni
        .ctl(&["--json", "send", "why? [demo:think]"])
        .ok()
        .json_lines();
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|e| e["event"].as_str())
        .filter(|kind| *kind == "thought" || *kind == "text")
        .collect();
    let first_text = kinds.iter().position(|k| *k == "text").unwrap();
    assert!(first_text >= 3, "three thoughts first: {kinds:?}");
    assert!(kinds[..first_text].iter().all(|k| *k == "thought"));
    let chat = omni
        .ctl_with_stdin(&["chat"], Some("and now? [demo:think]\n"))
        .ok();
    assert!(
        chat.stderr.contains("Reading the prompt"),
        "{}",
        chat.stderr
    );
    assert!(
        !chat.stdout.contains("Reading the prompt"),
        "{}",
        chat.stdout
    );
    assert!(chat.stdout.contains("You said"), "{}", chat.stdout);
}

#[test]
fn a_long_tag_streams_a_long_answer() {
    let omni = demo();
    omni.new_session();
    let out = omni.ctl(&["send", "[demo:long]"]).ok();
    assert!(out.stdout.lines().count() > 100, "{}", out.stdout);
    assert!(out.stdout.contains("line 120 of 120"), "{}", out.stdout);
}

#[test]
fn a_fallback_tag_has_the_fallback_model_answer_and_the_next_send_asks_the_demo_again() {
    let omni = demo();
    omni.new_session();
    let model = omni.ctl(&["model"]).ok();
    assert!(model.stdout.contains("omni-demo-lite"), "{}", model.stdout);
    let out = omni.ctl(&["send", "hi [demo:fallback]"]).ok();
    assert!(
        out.stderr.contains("asking gemini/omni-demo-lite instead"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("I am omni-demo-lite, the Omni demo's fallback model"),
        "{}",
        out.stdout
    );
    omni.ctl(&["send", "and you?"]).ok();
    let history = omni.ctl(&["--json", "history"]).ok().json();
    let models: Vec<&Value> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["role"] == "model")
        .map(|e| &e["model"]["model"])
        .collect();
    assert_eq!(models, ["omni-demo-lite", "omni-demo"]);
}

#[test]
fn a_blocked_tag_fails_every_send_until_the_third_suspends_the_session() {
    let omni = demo();
    omni.new_session();
    omni.ctl(&["send", "no way [demo:blocked]"])
        .fails(1, &["blocked"]);
    omni.ctl(&["retry"]).fails(1, &["blocked"]);
    omni.ctl(&["retry"])
        .fails(5, &["blocked", "suspended after 3 consecutive failures"]);
    omni.ctl(&["send", "hello"]).fails(5, &["suspended"]);
    omni.ctl(&["resume"]).ok();
    omni.ctl(&["back"]).ok();
    let out = omni.ctl(&["send", "hello again"]).ok();
    assert!(
        out.stdout.contains("You said: \"hello again\""),
        "{}",
        out.stdout
    );
}
