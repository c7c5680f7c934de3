//! `omnictl sessions` and `GET /v1/sessions` at any size: pages newest first by last
//! activity, `--before` the next page, filters by time, origin and model; the columns a
//! user reads.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use serde_json::Value;

fn ids(page: &Value) -> Vec<String> {
    page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sessions_page_by_last_activity_and_filter() {
    let omni = Omni::start();
    let mut made = Vec::new();
    for n in 0..5 {
        let id = omni.new_session();
        omni.ctl(&["send", "-s", &id, &format!("prompt number {n}")])
            .ok();
        made.push(id);
    }
    // The oldest session becomes the most recently active one.
    omni.ctl(&["send", "-s", &made[0], "back to the first"])
        .ok();
    let expected = [&made[0], &made[4], &made[3], &made[2], &made[1]];

    let first = omni
        .ctl(&["--json", "sessions", "--limit", "2"])
        .ok()
        .json();
    assert_eq!(ids(&first), [expected[0].clone(), expected[1].clone()]);
    let before = first["next_before"]
        .as_u64()
        .expect("a next page")
        .to_string();
    let second = omni
        .ctl(&["--json", "sessions", "--limit", "2", "--before", &before])
        .ok()
        .json();
    assert_eq!(ids(&second), [expected[2].clone(), expected[3].clone()]);
    let before = second["next_before"].as_u64().unwrap().to_string();
    let last = omni
        .ctl(&["--json", "sessions", "--limit", "2", "--before", &before])
        .ok()
        .json();
    assert_eq!(ids(&last), [expected[4].clone()]);
    assert!(last["next_before"].is_null());

    // The columns: title, origin, model, turns, last activity.
    let text = omni.ctl(&["sessions"]).ok().stdout;
    let top = text.lines().next().unwrap();
    assert!(top.starts_with(&format!("* {}", &made[0][..8])), "{text}");
    for column in ["own", "gemini/fake-model", "4 turns", "prompt number 0"] {
        assert!(top.contains(column), "{column:?} in {top}");
    }

    let all = |args: &[&str]| {
        let mut full = vec!["--json", "sessions"];
        full.extend_from_slice(args);
        ids(&omni.ctl(&full).ok().json())
    };
    assert_eq!(all(&["--origin", "own"]).len(), 5);
    assert!(all(&["--origin", "proxy"]).is_empty());
    assert_eq!(all(&["--model", "FAKE-model"]).len(), 5);
    assert!(all(&["--model", "claude"]).is_empty());
    assert!(all(&["--since", "2999-01-01"]).is_empty());
    assert_eq!(all(&["--since", "1h"]).len(), 5);
    omni.ctl(&["sessions", "--origin", "elsewhere"]).fails(
        2,
        &["'elsewhere' is not an origin; use own, proxy or import"],
    );
    omni.ctl(&["sessions", "--since", "someday"])
        .fails(2, &["--since \"someday\" is not a time"]);

    let api = omni.api();
    let page = api.get("/v1/sessions?limit=3&origin=own");
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(
        ids(&page.json()),
        expected[..3]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    );
    assert!(page.json()["next_before"].is_u64());
    let wrong = api.get("/v1/sessions?origin=mars");
    wrong.error(400, "invalid_request");
}
