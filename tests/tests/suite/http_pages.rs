//! A long session a screen at a time over HTTP: `history?limit=` pages, read back to
//! front through `earlier`, add up to the whole transcript, and `tree` gives every
//! node's place as the whole transcript does.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use omni_tests::http::Api;
use serde_json::{Value, json};

fn send(api: &Api, prompt: &str) {
    let body = json!({ "prompt": prompt }).to_string();
    let sent = api.request(
        "POST",
        "/v1/sessions/current/send",
        &[("accept", "application/json")],
        &body,
    );
    assert_eq!(sent.status, 200, "{}", sent.body);
}

/// A session of three rounds, the second answered twice (undo, then send again), so
/// it has a reverted branch.
fn branched_session(api: &Api) -> String {
    let created = api.post("/v1/sessions", "{}");
    assert_eq!(created.status, 201, "{}", created.body);
    for prompt in ["one", "two"] {
        send(api, prompt);
    }
    assert_eq!(api.post("/v1/sessions/current/undo", "").status, 200);
    send(api, "two again");
    send(api, "three");
    created.json()["session"].as_str().unwrap().to_string()
}

fn ids(view: &Value) -> Vec<u64> {
    view["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_u64().unwrap())
        .collect()
}

#[test]
fn pages_read_back_to_front_add_up_to_the_whole_transcript() {
    let omni = Omni::start();
    let api = omni.api();
    let id = branched_session(&api);
    for active in [false, true] {
        let whole = api
            .get(&format!("/v1/sessions/{id}/history?active={active}"))
            .json();
        let mut pages: Vec<Value> = Vec::new();
        let mut before = String::new();
        loop {
            let path = format!("/v1/sessions/{id}/history?active={active}&limit=3{before}");
            let page = api.get(&path).json();
            assert!(ids(&page).len() <= 3, "{page}");
            let earlier = page["earlier"].as_u64();
            pages.insert(0, page);
            match earlier {
                Some(node) => before = format!("&before={node}"),
                None => break,
            }
        }
        assert!(pages.len() >= 2, "several pages");
        let entries: Vec<Value> = pages
            .iter()
            .flat_map(|page| page["entries"].as_array().unwrap().clone())
            .collect();
        assert_eq!(
            entries,
            *whole["entries"].as_array().unwrap(),
            "active={active}"
        );
        assert_eq!(pages[0]["usage"], whole["usage"]);
        assert_eq!(pages[0]["head"], whole["head"]);
    }
}

#[test]
fn the_tree_shape_matches_the_transcript_and_bad_pages_are_refused() {
    let omni = Omni::start();
    let api = omni.api();
    let id = branched_session(&api);
    let whole = api.get(&format!("/v1/sessions/{id}/history")).json();
    let shape = api.get(&format!("/v1/sessions/{id}/tree")).json();
    assert_eq!(shape["head"], whole["head"]);
    let expected: Vec<Value> = whole["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            json!({"id": e["id"], "parent": e["parent"], "role": e["role"],
                   "reverted": e["reverted"], "compacted": e["compacted"]})
        })
        .collect();
    assert_eq!(shape["nodes"], json!(expected));
    assert!(
        expected.iter().any(|node| node["reverted"] == true),
        "the undone answer is reverted"
    );
    let bad = api.get(&format!("/v1/sessions/{id}/history?limit=ten"));
    assert_eq!(bad.status, 400, "{}", bad.body);
    let alone = api.get(&format!("/v1/sessions/{id}/history?before=3"));
    assert_eq!(alone.status, 400, "{}", alone.body);
    let missing = api.get("/v1/sessions/nosuch/tree");
    assert_eq!(missing.status, 404, "{}", missing.body);
}
