//! A 400 or a poisoned history stops the session and asks; every way out is a move in the
//! tree, so `redo` can take it back.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::Reply;
use omni_tests::harness::{CtlOutput, Omni};
use omni_tests::scenario::{MISMATCH, poison_the_current_session, poisoned_by_a_400};
use serde_json::Value;

fn poisoned(omni: &Omni) -> CtlOutput {
    poisoned_by_a_400(omni, "weather in Paris?").1
}

fn history(omni: &Omni) -> Value {
    omni.ctl(&["--json", "history"]).ok().json()
}

fn reverted(history: &Value) -> Vec<(u64, bool)> {
    history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["id"].as_u64().unwrap(), e["reverted"].as_bool().unwrap()))
        .collect()
}

const OPTIONS: [&str; 6] = [
    "needs recovery",
    "--deep",
    "--clear",
    "--ignore",
    "--retry",
    "omnictl logs export",
];

#[test]
fn a_mismatched_parts_400_stops_with_the_options_and_refuses_sends_until_recovered() {
    let omni = Omni::start();
    let out = poisoned(&omni).fails(3, &OPTIONS);
    assert!(out.stderr.contains(MISMATCH), "{}", out.stderr);
    assert_eq!(omni.fake().request_count(), 2, "a 400 is not retried");

    // Every send is refused, with the same options, and nothing reaches the model.
    omni.ctl(&["send", "hello?"]).fails(3, &OPTIONS);
    assert_eq!(omni.fake().request_count(), 2);
    let session = omni.ctl(&["--json", "sessions"]).ok().json();
    assert!(
        session["sessions"][0]["needs_recovery"]
            .as_str()
            .unwrap()
            .contains(MISMATCH)
    );

    // Without a flag and without a terminal, recover prints the options and exits 2.
    omni.ctl(&["recover"])
        .fails(2, &["--deep", "--clear", "--ignore", "--retry"]);
}

#[test]
fn deep_rollback_drops_the_prompt_and_its_tool_chain() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "an earlier round"]).ok();
    poison_the_current_session(&omni, "weather in Paris?").fails(3, &OPTIONS);

    let out = omni.ctl(&["recover", "--deep"]).ok();
    assert!(
        out.stdout.contains("head: node 2 (model)"),
        "{}",
        out.stdout
    );
    assert_eq!(
        reverted(&history(&omni)),
        [(1, false), (2, false), (3, true), (4, true), (5, true)]
    );
    // The session takes sends again, and the dropped chain is not in the context.
    omni.ctl(&["send", "something else"]).ok();
    let contents = omni.fake().requests().last().unwrap().contents();
    assert_eq!(contents.len(), 3);
    assert!(
        !contents
            .iter()
            .any(|c| c.to_string().contains("functionCall"))
    );
}

#[test]
fn redo_takes_a_recovery_move_back() {
    let omni = Omni::start();
    poisoned(&omni).fails(3, &OPTIONS);
    omni.ctl(&["recover", "--deep"]).ok();
    assert_eq!(history(&omni)["head"], 0);
    let out = omni.ctl(&["--json", "redo"]).ok().json();
    assert_eq!(
        (out["from"].as_u64(), out["to"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(
        reverted(&history(&omni)),
        [(1, false), (2, false), (3, false)]
    );
}

#[test]
fn clear_turn_drops_only_the_last_node() {
    let omni = Omni::start();
    poisoned(&omni).fails(3, &OPTIONS);
    let out = omni.ctl(&["recover", "--clear"]).ok();
    assert!(
        out.stdout.contains("head: node 2 (model)"),
        "{}",
        out.stdout
    );
    assert_eq!(
        reverted(&history(&omni)),
        [(1, false), (2, false), (3, true)]
    );
    // The call waits for its result again; answering it now works.
    omni.ctl(&["tool-result", "get_weather", r#"{"output": 22}"#])
        .ok();
    assert_eq!(history(&omni)["head"], 5);
}

#[test]
fn ignore_clears_the_state_and_keeps_the_history() {
    let omni = Omni::builder().args(&["--retry-max-attempts", "1"]).start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::error(
        400,
        "INVALID_ARGUMENT",
        "Request contains an invalid argument.",
    )]);
    omni.ctl(&["send", "first"]).fails(3, &OPTIONS);
    let before = history(&omni);
    let out = omni.ctl(&["--json", "recover", "--ignore"]).ok().json();
    assert_eq!(
        (
            out["action"].as_str(),
            out["from"].as_u64(),
            out["to"].as_u64()
        ),
        (Some("ignore"), Some(1), Some(1))
    );
    assert_eq!(history(&omni), before);
    omni.ctl(&["send", "second"]).ok();
    let contents = omni.fake().requests().last().unwrap().contents();
    assert_eq!(contents.len(), 1, "both prompts travel as one user turn");
}

#[test]
fn retry_sends_the_same_context_again_and_streams_the_answer() {
    let omni = Omni::start();
    poisoned(&omni).fails(3, &OPTIONS);
    let failed_body = omni.fake().requests()[1].body.clone();
    let out = omni.ctl(&["recover", "--retry"]).ok();
    assert!(
        out.stdout.contains("Thanks: get_weather returned"),
        "{}",
        out.stdout
    );
    assert_eq!(
        omni.fake().requests()[2].body,
        failed_body,
        "exactly the same request"
    );
    assert_eq!(history(&omni)["head"], 4);
    omni.ctl(&["recover", "--retry"])
        .fails(1, &["does not need recovery"]);
}

#[test]
fn at_a_terminal_recover_offers_a_numbered_menu() {
    let omni = Omni::start();
    poisoned(&omni).fails(3, &OPTIONS);
    // A stray answer is asked again; Enter leaves, with exit 1 and nothing changed.
    let (ok, screen) = omni.ctl_at_terminal("recover", "no\n\n");
    assert!(!ok, "leaving without a choice is not a success: {screen}");
    assert!(screen.contains("'no' is not one of 1-6"), "{screen}");
    assert_eq!(screen.matches("choose 1-6").count(), 2, "{screen}");
    assert!(
        screen.contains("nothing chosen: the session still needs recovery"),
        "{screen}"
    );
    omni.ctl(&["send", "still?"]).fails(3, &["needs recovery"]);

    let (ok, screen) = omni.ctl_at_terminal("recover", "x\n3\n");
    assert!(ok, "{screen}");
    for line in [
        "1) --compact",
        "2) --deep",
        "3) --clear",
        "4) --ignore",
        "5) --retry",
        "6) logs export",
        "choose 1-6",
    ] {
        assert!(screen.contains(line), "{line}: {screen}");
    }
    assert!(screen.contains("recovered (--clear)"), "{screen}");
    assert_eq!(history(&omni)["head"], 2);
}
