//! `omnictl chat` driven as a script (stdin piped): every slash command, end to end,
//! against a real daemon and the fake API.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::{CtlOutput, Omni};
use omni_tests::scenario::{overloaded, poisoned_by_a_400, tools_file};
use serde_json::{Value, json};

use omni_tests::fake_gemini::{Answer, Reply};

/// Runs `omnictl chat ARGS` with `script` as its input.
fn chat(omni: &Omni, args: &[&str], script: &str) -> CtlOutput {
    let mut full = vec!["chat"];
    full.extend_from_slice(args);
    omni.ctl_with_stdin(&full, Some(script))
}

/// The ids of the entries on the path to the head.
fn path(omni: &Omni, session: &str) -> Vec<u64> {
    let view = omni
        .ctl(&["--json", "history", "--active", "-s", session])
        .ok()
        .json();
    view["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_piped_chat_is_a_script_of_prompts_and_moves() {
    let omni = Omni::start();
    let id = omni.new_session();
    let out = chat(&omni, &["-s", &id], "hi\n/undo\n/history --active\n").ok();
    assert!(out.stdout.contains("You said: \"hi\"."), "{}", out.stdout);
    assert!(out.stdout.contains("undo · head: node 1"), "{}", out.stdout);
    let after_undo = out.stdout.split("undo · head").nth(1).unwrap();
    assert!(after_undo.contains("#1 user: hi"), "{after_undo}");
    assert!(!after_undo.contains("#2 model"), "{after_undo}");
    assert_eq!(path(&omni, &id), [1]);

    // Redo, back, checkout, branches and the tree, in one script.
    let script = "/redo\n/back\n/redo\nsecond\n/checkout 2\nthird\n/branches\n/tree\n";
    let out = chat(&omni, &["-s", &id], script).ok();
    for line in [
        "redo · head: node 2",
        "back · head: the start",
        "redo · head: node 2",
        "checkout · head: node 2",
    ] {
        assert!(out.stdout.contains(line), "{line} in:\n{}", out.stdout);
    }
    assert_eq!(path(&omni, &id), [1, 2, 5, 6]);
    assert!(
        out.stdout.contains("* #6"),
        "the head's branch: {}",
        out.stdout
    );
    assert!(out.stdout.contains("forks at #2"), "{}", out.stdout);
    let tree = out.stdout.split("session ").last().unwrap();
    assert!(tree.contains("├─ #3 user: second"), "{tree}");
    assert!(tree.contains("[ REVERTED ] on another branch"), "{tree}");
    assert!(tree.contains("└─ #5 user: third"), "{tree}");
    assert!(tree.contains("#6 model: You said: \"third\""), "{tree}");
    assert!(tree.contains("◀ head"), "{tree}");
}

#[test]
fn edit_forks_a_branch_from_before_the_prompt_it_replaces() {
    let omni = Omni::start();
    let id = omni.new_session();
    chat(&omni, &["-s", &id], "first\nsecond\n").ok();
    let out = chat(&omni, &["-s", &id], "/edit 3\nsecond, better\n").ok();
    assert!(
        out.stderr
            .contains("the next prompt replaces #3 as a new branch from #2"),
        "{}",
        out.stderr
    );
    assert_eq!(path(&omni, &id), [1, 2, 5, 6]);
    let view = omni.history_of(&id);
    assert_eq!(view["entries"][4]["text"], "second, better");
    assert_eq!(view["entries"][2]["why_reverted"], "other_branch");
    // /edit without N takes the last prompt; one that is not a prompt is refused.
    chat(&omni, &["-s", &id], "/edit 2\n").fails(2, &["#2 is not a prompt on the current path"]);
}

#[test]
fn a_triple_quoted_block_is_one_multi_line_prompt() {
    let omni = Omni::start();
    let id = omni.new_session();
    chat(
        &omni,
        &["-s", &id],
        "\"\"\"\nline one\n/not a command\n\"\"\"\n",
    )
    .ok();
    let view = omni.history_of(&id);
    assert_eq!(view["entries"][0]["text"], "line one\n/not a command");
    assert_eq!(view["entries"].as_array().unwrap().len(), 2);
}

#[test]
fn a_failed_send_leaves_its_prompt_pending_and_retry_sends_it_as_is() {
    let omni = Omni::builder()
        .config("[retry]\nmax_attempts = 1\ninitial_delay_ms = 10\n")
        .start();
    let id = omni.new_session();
    omni.fake().push([overloaded()]);
    let failed = chat(&omni, &["-s", &id], "the question\nnot reached\n");
    failed.fails(1, &["#1 stays pending: /retry sends it again as it is"]);
    assert_eq!(
        omni.fake().requests().len(),
        1,
        "the chat stopped at the failure"
    );
    let out = chat(&omni, &["-s", &id], "/retry\n").ok();
    assert!(
        out.stdout.contains("You said: \"the question\"."),
        "{}",
        out.stdout
    );
    let sent = omni.fake().requests().last().unwrap().body.clone();
    assert_eq!(sent.matches("the question").count(), 1, "{sent}");
    assert_eq!(
        path(&omni, &id),
        [1, 2],
        "nothing new was stored before the answer"
    );
    // With nothing pending, /retry says why it cannot.
    chat(&omni, &["-s", &id], "/retry\n").fails(1, &["nothing to retry"]);
    // After undo, `omnictl retry` asks the same question again: a new answer beside the old.
    omni.ctl(&["undo", "-s", &id]).ok();
    let again = omni.ctl(&["retry", "-s", &id]).ok();
    assert!(
        again.stdout.contains("You said: \"the question\"."),
        "{}",
        again.stdout
    );
    assert_eq!(path(&omni, &id), [1, 3]);
}

#[test]
fn the_first_failure_ends_a_piped_chat_with_that_failures_exit_code() {
    let omni = Omni::start();
    let id = omni.new_session();
    chat(&omni, &["-s", &id], "/frobnicate\nhi\n").fails(2, &["/frobnicate is not a command"]);
    chat(&omni, &["-s", &id], "/undo\nhi\n").fails(1, &["nothing to undo"]);
    assert!(
        omni.fake().requests().is_empty(),
        "nothing after a failure runs"
    );
    let out = chat(&omni, &["-s", &id], "/quit\nhi\n").ok();
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        omni.fake().requests().is_empty(),
        "nothing after /quit runs"
    );
}

#[test]
fn sessions_new_switch_status_model_export_and_help_work_from_the_chat() {
    let omni = Omni::start();
    let first = omni.new_session();
    let bundle = omni.dir().join("bundle.json");
    let script = format!(
        "/help\n/status\n/model\n/new\nin the new one\n/sessions\n/switch {}\n/export {}\n",
        &first[..8],
        bundle.display()
    );
    let out = chat(&omni, &["-s", &first], &script).ok();
    assert!(out.stdout.contains("/checkout N"), "help: {}", out.stdout);
    assert!(
        out.stdout
            .contains("model: gemini/fake-model (no fallback)"),
        "{}",
        out.stdout
    );
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    let listed = sessions["sessions"].as_array().unwrap();
    assert_eq!(listed.len(), 2);
    let second = listed.iter().find(|s| s["id"] != first.as_str()).unwrap();
    assert_eq!(second["title"], "in the new one");
    assert!(
        out.stdout.contains(&second["id"].as_str().unwrap()[..8]),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.matches("session ").count() >= 3,
        "each session is greeted: {}",
        out.stderr
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&bundle).unwrap()).unwrap();
    assert_eq!(
        written["session"],
        first.as_str(),
        "the bundle is the switched-to session's"
    );
}

#[test]
fn recovery_from_a_piped_chat_names_the_choices_and_applies_one() {
    let omni = Omni::start();
    let (id, _) = poisoned_by_a_400(&omni, "weather?");
    let out = chat(&omni, &["-s", &id], "/recover\n");
    out.fails(
        2,
        &[
            "this session needs recovery",
            "/recover compact | deep | clear | ignore | retry",
        ],
    );
    let out = chat(&omni, &["-s", &id], "/recover deep\n/history --active\n").ok();
    assert!(
        out.stderr.contains("recovered · head: the start"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("(no turns yet)"), "{}", out.stdout);
    let view = omni.history_of(&id);
    assert_eq!(view["entries"][0]["why_reverted"], "recovered");
}

#[test]
fn function_calls_are_answered_in_the_chat_or_skipped() {
    let omni = Omni::start();
    let tools = tools_file(&omni);
    let new = omni
        .ctl(&["--json", "new", "--tools", &tools.display().to_string()])
        .ok()
        .json();
    let id = new["session"].as_str().unwrap().to_string();
    let call = || {
        Reply::Answer(Answer::calls([(
            "get_weather",
            json!({"city": "Paris"}),
            Some("c1"),
        )]))
    };
    omni.fake().push([call()]);
    let out = chat(&omni, &["-s", &id], "weather in Paris?\n{\"temp\": 21}\n").ok();
    assert!(out.stdout.contains("→ get_weather"), "{}", out.stdout);
    assert!(
        out.stderr.contains("type each result as JSON"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("Thanks: get_weather returned {\"temp\":21}"),
        "{}",
        out.stdout
    );
    omni.fake().push([call()]);
    let refused = chat(&omni, &["-s", &id], "and tomorrow?\n/undo\n");
    refused.fails(
        2,
        &["function calls wait for results: type the JSON result, or /skip"],
    );
    // A new chat finds the calls still waiting, and /skip undoes them.
    let out = chat(&omni, &["-s", &id], "/skip\n").ok();
    assert!(out.stderr.contains("→ get_weather"), "{}", out.stderr);
    assert!(out.stdout.contains("skip · head: node 5"), "{}", out.stdout);
    assert_eq!(path(&omni, &id), [1, 2, 3, 4, 5]);
}

#[test]
fn a_suspended_session_says_so_and_resume_lifts_it() {
    let omni = Omni::builder()
        .config("[retry]\nmax_attempts = 1\ninitial_delay_ms = 10\n")
        .start();
    let id = omni.new_session();
    for _ in 0..3 {
        omni.fake().push([overloaded()]);
        omni.ctl(&["send", "-s", &id, "hello?"]);
    }
    let out = chat(&omni, &["-s", &id], "/resume\n/retry\n").ok();
    assert!(
        out.stderr.contains("this session is suspended"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("resumed"), "{}", out.stdout);
    assert!(out.stdout.contains("You said: \"hello?"), "{}", out.stdout);
}

#[test]
fn the_tree_shows_undo_back_checkout_and_an_interrupted_answer_for_what_they_are() {
    let omni = Omni::start();
    let id = omni.new_session();
    chat(
        &omni,
        &["-s", &id],
        "one\ntwo\n/undo\n/back\nthree\n/checkout 2\n",
    )
    .ok();
    let gate = omni_tests::scenario::held_answer(&omni);
    let mut send = omni.spawn_ctl(&["send", "-s", &id, "four"]);
    send.read_texts(1);
    omni.ctl(&["cancel", "-s", &id]).ok();
    send.finish();
    gate.open();
    let tree = omni.ctl(&["history", "--tree", "-s", &id]).ok().stdout;
    let lines: Vec<&str> = tree.lines().skip(1).collect();
    let expected = [
        "#1 user: one",
        "#2 model: You said: \"one\".",
        "├─ #3 user: two  [ REVERTED ] rewound",
        "│  #4 model: You said: \"two\".",
        "├─ #5 user: three  [ REVERTED ] on another branch",
        "│  #6 model: You said: \"three\".",
        "└─ #7 user: four  ◀ head",
        "   #8 model: partial answer  [ REVERTED ] interrupted",
    ];
    assert_eq!(lines.len(), expected.len(), "{tree}");
    for (line, start) in lines.iter().zip(expected) {
        assert!(
            line.starts_with(start),
            "{line:?} should start {start:?}:\n{tree}"
        );
    }
    assert!(lines[3].ends_with("[ REVERTED ] undone"), "{tree}");
    assert!(
        lines[5].ends_with("[ REVERTED ] on another branch"),
        "{tree}"
    );
}
