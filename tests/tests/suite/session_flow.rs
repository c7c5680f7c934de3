//! The spine end to end: real omnid, real omnictl, fake Gemini over HTTP.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::fake_gemini::{Answer, Gate, Reply};
use omni_tests::harness::Omni;
use serde_json::{Value, json};

fn new_session(omni: &Omni) -> String {
    let out = omni.ctl(&["--json", "new"]).ok();
    out.json()["session"]
        .as_str()
        .expect("a session id")
        .to_string()
}

fn history(omni: &Omni, extra: &[&str]) -> Value {
    let mut args = vec!["--json", "history"];
    args.extend_from_slice(extra);
    omni.ctl(&args).ok().json()
}

/// (id, role, text, reverted) of every entry.
fn entries(history: &Value) -> Vec<(u64, String, String, bool)> {
    history["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["id"].as_u64().unwrap(),
                e["role"].as_str().unwrap().to_string(),
                e["text"].as_str().unwrap().to_string(),
                e["reverted"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn texts_of(content: &Value) -> Vec<String> {
    content["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn send_streams_the_answer_and_stores_both_turns() {
    let omni = Omni::start();
    let id = new_session(&omni);
    omni.fake()
        .push([Reply::Answer(Answer::text(["The ", "answer ", "is 42."]))]);

    let out = omni.ctl(&["send", "what is the answer?"]).ok();
    assert_eq!(out.stdout, "The answer is 42.\n");

    let h = history(&omni, &[]);
    assert_eq!(h["session"], json!(id));
    assert_eq!(h["head"], json!(2));
    assert_eq!(
        entries(&h),
        vec![
            (1, "user".into(), "what is the answer?".into(), false),
            (2, "model".into(), "The answer is 42.".into(), false),
        ]
    );
    assert_eq!(h["entries"][1]["parent"], json!(1));
    assert_eq!(h["entries"][0]["parent"], Value::Null);
    assert_eq!(h["entries"][1]["model"]["finish_reason"], json!("STOP"));
}

#[test]
fn json_send_prints_each_event_then_the_result() {
    let omni = Omni::start();
    new_session(&omni);
    omni.fake()
        .push([Reply::Answer(Answer::text(["a", "b", "c"]))]);
    // --json after the subcommand works as well as before it.
    let lines = omni.ctl(&["send", "--json", "go"]).ok().json_lines();
    assert_eq!(lines[0]["event"], "prompt_stored");
    assert_eq!(lines[0]["node"], 1);
    let texts: Vec<&str> = lines[1..4]
        .iter()
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["a", "b", "c"]);
    let result = lines.last().unwrap();
    assert_eq!(result["node"], 2);
    assert_eq!(result["text"], "abc");
    assert_eq!(lines.len(), 5);
}

#[test]
fn chunks_reach_the_client_before_the_answer_is_complete() {
    let omni = Omni::start();
    new_session(&omni);
    let gate = Gate::new();
    omni.fake().push([Reply::HoldAfter {
        chunks: 2,
        gate: gate.clone(),
        answer: Answer::text(["first ", "second ", "third"]),
    }]);
    let mut send = omni.spawn_ctl(&["send", "stream please"]);
    // The server holds the third chunk until the gate opens: if the client only printed
    // at the end, this read would never return.
    assert_eq!(send.read_texts(2), ["first ", "second "]);
    gate.open();
    let out = send.finish().ok();
    let result = out.json_lines().pop().unwrap();
    assert_eq!(result["text"], "first second third");
}

#[test]
fn the_second_send_carries_the_full_context() {
    let omni = Omni::start();
    new_session(&omni);
    omni.fake()
        .push([Reply::Answer(Answer::text(["Hi there."]))]);
    omni.ctl(&["send", "hello"]).ok();
    omni.ctl(&["send", "and again"]).ok();
    let requests = omni.fake().requests();
    assert_eq!(requests.len(), 2);
    let contents = requests[1].contents();
    let roles: Vec<&str> = contents
        .iter()
        .map(|c| c["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model", "user"]);
    assert_eq!(texts_of(&contents[0]), ["hello"]);
    assert_eq!(texts_of(&contents[1]), ["Hi there."]);
    assert_eq!(texts_of(&contents[2]), ["and again"]);
}

#[test]
fn a_prompt_can_come_from_stdin() {
    let omni = Omni::start();
    new_session(&omni);
    let prompt = "a long prompt\nwith two lines\n";
    omni.ctl_with_stdin(&["send", "-"], Some(prompt)).ok();
    let contents = omni.fake().requests()[0].contents();
    assert_eq!(texts_of(&contents[0]), [prompt]);
}

#[test]
fn undo_drops_the_answer_keeps_the_prompt_and_redo_restores_it() {
    let omni = Omni::start();
    new_session(&omni);
    omni.ctl(&["send", "one"]).ok();
    omni.ctl(&["send", "two"]).ok();

    let out = omni.ctl(&["--json", "undo"]).ok().json();
    assert_eq!(
        (out["from"].as_u64(), out["to"].as_u64()),
        (Some(4), Some(3))
    );
    let h = history(&omni, &[]);
    assert_eq!(h["head"], 3);
    let reverted: Vec<bool> = entries(&h).iter().map(|e| e.3).collect();
    assert_eq!(reverted, [false, false, false, true]);
    // The active view is exactly what the model will see next.
    let active = history(&omni, &["--active"]);
    let ids: Vec<u64> = entries(&active).iter().map(|e| e.0).collect();
    assert_eq!(ids, [1, 2, 3]);

    omni.ctl(&["redo"]).ok();
    assert_eq!(history(&omni, &[])["head"], 4);
    let out = omni.ctl(&["redo"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("nothing to redo"), "{}", out.stderr);
}

#[test]
fn the_transcript_crosses_out_reverted_turns() {
    let omni = Omni::start();
    new_session(&omni);
    omni.fake().push([
        Reply::Answer(Answer::text(["kept"])),
        Reply::Answer(Answer::text(["dropped"])),
    ]);
    omni.ctl(&["send", "first"]).ok();
    omni.ctl(&["send", "second"]).ok();
    omni.ctl(&["undo"]).ok();
    let text = omni.ctl(&["history"]).ok().stdout;
    assert!(text.contains("\n#2 model: kept\n"), "{text}");
    assert!(
        text.contains("\n[ REVERTED ] #4 model: dropped\n"),
        "{text}"
    );
    assert!(
        !text.contains('\x1b'),
        "no colour codes when not a terminal: {text:?}"
    );
}

#[test]
fn a_new_prompt_after_undo_is_merged_with_the_kept_one() {
    let omni = Omni::start();
    new_session(&omni);
    omni.ctl(&["send", "hello"]).ok();
    omni.ctl(&["send", "first try"]).ok();
    omni.ctl(&["undo"]).ok();
    omni.ctl(&["send", "second try"]).ok();
    let contents = omni.fake().requests()[2].contents();
    let roles: Vec<&str> = contents
        .iter()
        .map(|c| c["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model", "user"], "contents must alternate");
    assert_eq!(texts_of(&contents[2]), ["first try", "second try"]);
}

#[test]
fn back_drops_the_round_and_a_new_prompt_forks_a_branch() {
    let omni = Omni::start();
    new_session(&omni);
    omni.ctl(&["send", "one"]).ok();
    omni.ctl(&["send", "two"]).ok();
    let out = omni.ctl(&["back"]).ok();
    assert!(
        out.stdout.contains("head: node 2 (model)"),
        "{}",
        out.stdout
    );
    omni.ctl(&["send", "three"]).ok();

    // The model saw one, its answer, three: not two.
    let contents = omni.fake().requests()[2].contents();
    assert_eq!(texts_of(&contents[2]), ["three"]);
    assert_eq!(contents.len(), 3);

    let branches = omni.ctl(&["--json", "branches"]).ok().json();
    let list = branches["branches"].as_array().unwrap();
    let leaves: Vec<(u64, u64, bool)> = list
        .iter()
        .map(|b| {
            (
                b["leaf"].as_u64().unwrap(),
                b["length"].as_u64().unwrap(),
                b["contains_head"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(leaves, [(4, 4, false), (6, 4, true)]);
    assert!(list[0]["last_line"].as_str().unwrap().contains("two"));

    // Checkout the old branch and continue from it.
    omni.ctl(&["checkout", "4"]).ok();
    omni.ctl(&["send", "four"]).ok();
    let contents = omni.fake().requests()[3].contents();
    let all: Vec<String> = contents.iter().flat_map(texts_of).collect();
    assert_eq!(all.len(), 5);
    assert_eq!(all[2], "two");
    assert_eq!(all[4], "four");
    let text = omni.ctl(&["branches"]).ok().stdout;
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().any(|l| l.starts_with("* #8")), "{text}");
}

#[test]
fn back_at_the_start_and_undo_without_an_answer_are_refused_and_change_nothing() {
    let omni = Omni::start();
    new_session(&omni);
    let out = omni.ctl(&["back"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("already at the start of the conversation"),
        "{}",
        out.stderr
    );

    omni.ctl(&["send", "hi"]).ok();
    omni.ctl(&["undo"]).ok();
    let before = history(&omni, &[]);
    let out = omni.ctl(&["undo"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("has no answer"), "{}", out.stderr);
    assert!(
        out.stderr.contains("omnictl back"),
        "says what to do instead: {}",
        out.stderr
    );
    assert_eq!(history(&omni, &[]), before);

    omni.ctl(&["back"]).ok();
    assert_eq!(history(&omni, &[])["head"], 0);
    let out = omni.ctl(&["back"]);
    assert_eq!(out.code, 1);
}

#[test]
fn checkout_of_a_missing_node_is_a_clear_error() {
    let omni = Omni::start();
    new_session(&omni);
    let out = omni.ctl(&["checkout", "9"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("node 9 does not exist"),
        "{}",
        out.stderr
    );
}

#[test]
fn sessions_are_listed_newest_first_and_selected_by_prefix() {
    let omni = Omni::start();
    let out = omni.ctl(&["send", "hi"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("omnictl new"), "{}", out.stderr);

    let first = new_session(&omni);
    omni.ctl(&["send", "in the first"]).ok();
    let second = new_session(&omni);
    let list = omni.ctl(&["--json", "sessions"]).ok().json();
    let ids: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [second.as_str(), first.as_str()]);
    assert_eq!(list["sessions"][0]["current"], true);
    assert_eq!(list["sessions"][1]["title"], "in the first");

    // A unique prefix selects a session; the default is the most recently used one.
    omni.ctl(&["send", "-s", &first[..8], "more"]).ok();
    let h = history(&omni, &[]);
    assert_eq!(h["session"], json!(first));
    assert_eq!(entries(&h).len(), 4);

    let out = omni.ctl(&["history", "-s", "00000000-0000-4000-8000-000000000000"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("no session matches"), "{}", out.stderr);
}

#[test]
fn status_describes_the_daemon() {
    let omni = Omni::start();
    new_session(&omni);
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(status["socket"], json!(omni.socket.display().to_string()));
    assert_eq!(status["sessions"], 1);
    assert_eq!(status["model"], "gemini/fake-model", "PROVIDER/MODEL");
    omni.ctl(&["send", "hello"]).ok();
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["sessions_loaded"], 1, "{status}");
    // The new session, the prompt and the answer, each durable before it was told.
    assert_eq!(status["store_commits"], 3, "{status}");
    assert!(status["store_syncs"].as_u64().unwrap() >= 1, "{status}");
    let text = omni.ctl(&["status"]).ok().stdout;
    assert!(text.starts_with("omnid "), "{text}");
    assert!(text.contains("1 session"), "{text}");
}

#[test]
fn while_an_answer_streams_changes_are_refused_but_reads_answer() {
    let omni = Omni::start();
    new_session(&omni);
    let gate = Gate::new();
    omni.fake().push([Reply::HoldAfter {
        chunks: 1,
        gate: gate.clone(),
        answer: Answer::text(["slow ", "answer"]),
    }]);
    let mut send = omni.spawn_ctl(&["send", "take your time"]);
    send.read_texts(1);

    let out = omni.ctl(&["undo"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("is busy answering a prompt"),
        "{}",
        out.stderr
    );
    let out = omni.ctl(&["send", "me too"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("busy"), "{}", out.stderr);
    // Reads go straight to the store: the prompt is already there.
    let h = history(&omni, &[]);
    assert_eq!(
        entries(&h),
        vec![(1, "user".into(), "take your time".into(), false)]
    );

    gate.open();
    send.finish().ok();
    assert_eq!(history(&omni, &[])["head"], 2);
    assert_eq!(
        omni.fake().request_count(),
        1,
        "the refused send never reached the model"
    );
}
