//! Cancel and attach through the real omnictl: Ctrl-C stops an answer and keeps the
//! partial answer out of the context; `omnictl cancel` does it from elsewhere; `omnictl
//! attach` follows another client's send.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use omni_tests::scenario::held_answer;

#[test]
fn ctrl_c_during_send_cancels_keeps_the_partial_answer_out_and_exits_130() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    let gate = held_answer(&omni);
    let mut send = omni.spawn_ctl(&["send", "a long question"]);
    send.read_texts(2);
    send.interrupt();
    let sent = send.finish();
    assert_eq!(sent.code, 130, "{}", sent.stderr);
    assert!(
        sent.stderr
            .contains("kept as node 2 (interrupted, not in the context)"),
        "{}",
        sent.stderr
    );
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(history["head"], 1, "the head stays on the prompt");
    assert_eq!(history["entries"][1]["text"], "partial answer ");
    assert_eq!(history["entries"][1]["reverted"], true);
    assert_eq!(history["entries"][1]["model"]["interrupted"], true);
    // The session takes the next send at once, and the partial answer is not sent.
    omni.ctl(&["send", "a shorter one"]).ok();
    let last = omni.fake().requests().last().unwrap().body.clone();
    assert!(!last.contains("partial answer"), "{last}");
    assert!(last.contains("a long question"), "{last}");
    gate.open();
}

#[test]
fn omnictl_cancel_stops_another_clients_answer_and_refuses_when_idle() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    let gate = held_answer(&omni);
    let mut send = omni.spawn_ctl(&["send", "a long question"]);
    send.read_texts(1);
    let cancelled = omni.ctl(&["cancel"]).ok();
    assert!(
        cancelled.stdout.contains("cancelled the answer to node 1"),
        "{}",
        cancelled.stdout
    );
    let sent = send.finish();
    assert_eq!(sent.code, 130, "{}", sent.stderr);
    assert!(
        sent.stderr.contains("the answer was cancelled"),
        "{}",
        sent.stderr
    );
    omni.ctl(&["cancel"])
        .fails(1, &["not answering anything", "nothing to cancel"]);
    let json = omni.ctl(&["--json", "cancel"]);
    assert_eq!(json.json()["error"]["kind"], "wrong_state");
    gate.open();
}

#[test]
fn attach_follows_another_clients_send_until_ctrl_c() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    let mut follower = omni.spawn_ctl(&["attach"]);
    let attached = follower.read_until("attached");
    assert_eq!(attached[0]["session"]["head"], 0);
    omni.ctl(&["send", "hello there"]).ok();
    let seen = follower.read_until("answered");
    let names: Vec<&str> = seen.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(names.first(), Some(&"prompt_stored"), "{names:?}");
    assert!(names.contains(&"text"), "{names:?}");
    assert_eq!(seen.last().unwrap()["node"], 2);
    omni.ctl(&["undo"]).ok();
    let moved = follower.read_until("moved");
    assert_eq!(moved.last().unwrap()["to"], 1);
    follower.interrupt();
    assert_eq!(follower.finish().code, 130);
}

#[test]
fn a_follower_that_falls_behind_is_told_how_many_events_it_missed() {
    use omni_tests::fake_gemini::{Answer, Reply};
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    let mut follower = omni.spawn_ctl(&["attach"]);
    follower.read_until("attached");
    // The follower reads nothing while a long answer streams: its pipe and socket fill,
    // and the session's backlog for it (1024 events) overflows. The sender never waits.
    let chunks: Vec<String> = (0..20_000).map(|i| format!("w{i} ")).collect();
    omni.fake().push([Reply::Answer(Answer::text(chunks))]);
    omni.ctl(&["send", "flood"]).ok();
    let seen = follower.read_until("answered");
    let missed: u64 = seen
        .iter()
        .filter(|e| e["event"] == "missed")
        .map(|e| e["events"].as_u64().unwrap())
        .sum();
    assert!(missed > 0, "no missed event among {} events", seen.len());
    // The prompt_stored event and the 20,000 texts: each seen or counted as missed.
    let others = seen
        .iter()
        .filter(|e| e["event"] != "missed" && e["event"] != "answered")
        .count() as u64;
    assert_eq!(
        others + missed,
        20_001,
        "every event is seen or counted as missed"
    );
}
