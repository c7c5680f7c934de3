//! Live across omnid sharing a store: a follower on one sees a turn answered on another
//! stream in (the prompt, the text while it is still coming, the answer, each move), a
//! follower that arrives mid-answer sees it from its start; a turn committed on one is
//! found by the other's search, and a session purged on one leaves the other's index too.

use omni_tests::harness::{Omni, any_file_holds};
use omni_tests::postgres::PgCluster;
use omni_tests::proxy::eventually;
use omni_tests::scenario::held_answer;

/// The events' names, in order.
fn names(events: &[serde_json::Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["event"].as_str()).collect()
}

#[test]
fn a_follower_on_another_omnid_sees_the_turn_stream_in_and_every_move() {
    let cluster = PgCluster::start();
    let secrets = tempfile::tempdir().unwrap();
    let password = cluster.password_file(secrets.path());
    let alpha = cluster.omnid(&password, "alpha").start();
    let beta = cluster.omnid(&password, "beta").start();
    let session = alpha.new_session();
    alpha.ctl(&["send", "-s", &session, "first"]).ok();

    let mut follower = beta.spawn_ctl(&["attach", "-s", &session]);
    follower.read_until("attached");
    let gate = held_answer(&alpha);
    let mut slow = alpha.spawn_ctl(&["send", "-s", &session, "a slow question"]);
    slow.read_texts(2);
    // The answer is held half-way on alpha: beta's follower has its start already (after
    // the first turn's events, which may reach it late).
    while follower.read_until("prompt_stored").last().unwrap()["node"] != 3 {}
    let streamed = follower.read_until("text");
    assert_eq!(names(&streamed), ["text"], "{streamed:?}");
    // One arriving now sees the answer from its start.
    let mut late = beta.spawn_ctl(&["attach", "-s", &session]);
    late.read_until("attached");
    let so_far = late.read_until("text");
    assert!(so_far.iter().any(|e| e["event"] == "prompt_stored"), "{so_far:?}");

    gate.open();
    slow.finish().ok();
    let answered = follower.read_until("answered");
    assert_eq!(answered.last().unwrap()["node"], 4);
    let text: String = streamed
        .iter()
        .chain(&answered)
        .filter(|e| e["event"] == "text")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(text, "partial answer never finished");
    late.read_until("answered");

    alpha.ctl(&["undo", "-s", &session]).ok();
    let moved = follower.read_until("moved");
    assert_eq!(moved.last().unwrap()["to"], 3);
    follower.interrupt();
    late.interrupt();
    // Beta's own turn goes on from what alpha did.
    beta.ctl(&["redo", "-s", &session]).ok();
    assert_eq!(alpha.history_of(&session)["head"], 4);
}

const PHRASE: &str = "zanzibarquetzalcoatl";

fn hits(omni: &Omni) -> usize {
    let found = omni.ctl(&["--json", "search", PHRASE]).ok().json();
    found["hits"].as_array().map_or(0, Vec::len)
}

#[test]
fn a_turn_committed_on_one_omnid_is_found_on_another_and_a_purge_leaves_both_indexes() {
    let cluster = PgCluster::start();
    let secrets = tempfile::tempdir().unwrap();
    let password = cluster.password_file(secrets.path());
    let alpha = cluster.omnid(&password, "alpha").start();
    let beta = cluster.omnid(&password, "beta").start();
    assert_eq!(hits(&beta), 0);
    let session = alpha.new_session();
    let prompt = format!("tell me of {PHRASE} {}", "x".repeat(2000));
    alpha.ctl(&["send", "-s", &session, &prompt]).ok();
    eventually("beta's search finds alpha's turn", || hits(&beta) > 0);
    let index = beta.dir().join("data").join("search");
    assert!(any_file_holds(&index, PHRASE.as_bytes()), "beta's index holds it");

    alpha.ctl(&["purge", "-s", &session, "--yes"]).ok();
    eventually("beta's index lets go of the purged session", || {
        !any_file_holds(&index, PHRASE.as_bytes())
    });
    assert_eq!(hits(&beta), 0);
}
