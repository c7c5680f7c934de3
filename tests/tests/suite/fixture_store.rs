//! A store written by omnid 0.1.0 (before store markers and this release's reshaping)
//! opens and reads exactly as that release showed it: every session's transcript and
//! branches, and the session list. The fixture was written by that release's own binaries
//! (tests/fixtures/store-0.1.0: a plain chat with every head move and a blob-sized prompt,
//! a tool session through every recovery choice and left needing recovery, a suspended
//! session, and an answer interrupted by a shutdown).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::path::{Path, PathBuf};

use omni_tests::harness::Omni;
use serde_json::{Value, json};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/store-0.1.0")
}

fn expected(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture().join("expected").join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// What a later release added to a JSON object, removed so it compares with 0.1.0's.
fn without(mut value: Value, added: &[&str]) -> Value {
    if let Some(object) = value.as_object_mut() {
        for key in added {
            object.remove(*key);
        }
    }
    value
}

#[test]
fn a_store_written_by_omnid_0_1_0_reads_identically() {
    let omni = Omni::builder().data_from(&fixture().join("store")).start();
    for name in ["a", "b", "c", "d"] {
        let history = expected(&format!("history-{name}.json"));
        let session = history["session"].as_str().unwrap().to_string();
        let mut now = omni.ctl(&["--json", "history", "-s", &session]).ok().json();
        // 0.1.0 kept no token totals: they are summed from the answers themselves.
        let answers: Vec<&Value> = history["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["model"].is_object())
            .collect();
        let input: u64 = answers
            .iter()
            .map(|e| e["model"]["usage"]["prompt_tokens"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(now["usage"]["answers"], answers.len(), "{}", now["usage"]);
        assert_eq!(now["usage"]["input"], input, "{}", now["usage"]);
        // 0.1.0 knew no context window: the gauge is measured now, and nothing is
        // compacted in a store that predates compaction.
        assert_eq!(
            now["context"]["model"], "gemini/fake-model",
            "{}",
            now["context"]
        );
        assert!(
            now["earlier"].is_null(),
            "a whole transcript has no page before it"
        );
        now = without(now, &["usage", "context", "earlier"]);
        for entry in now["entries"].as_array_mut().unwrap() {
            assert_eq!(entry["compacted"], false);
            assert!(entry["compaction"].is_null());
            let added = [
                "why_reverted",
                "compacted",
                "compaction",
                "client_compaction",
            ];
            *entry = without(entry.take(), &added);
            // Every answer 0.1.0 stored came from Gemini, its one provider.
            if let Some(model) = entry.get_mut("model").filter(|m| m.is_object()) {
                assert_eq!(model["provider"], "gemini", "{model}");
                *model = without(model.take(), &["provider"]);
                // 0.1.0 counted no cached tokens: they read as none.
                if let Some(usage) = model.get_mut("usage").filter(|u| u.is_object()) {
                    assert_eq!(usage["cached_tokens"], 0, "{usage}");
                    *usage = without(usage.take(), &["cached_tokens"]);
                }
            }
        }
        // Compared whole (one transcript holds a 136 KB prompt, too long to print).
        assert!(
            without(now, &["damaged"]) == history,
            "history of {name} differs"
        );
        let mut branches = omni
            .ctl(&["--json", "branches", "-s", &session])
            .ok()
            .json();
        for branch in branches["branches"].as_array_mut().unwrap() {
            *branch = without(branch.take(), &["forks_at"]);
        }
        assert_eq!(
            branches,
            expected(&format!("branches-{name}.json")),
            "branches of {name}"
        );
    }
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    let listed: Vec<Value> = sessions["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            // Sessions of 0.1.0 ask the daemon's model, with no chain of their own.
            assert_eq!(
                (&s["model"], &s["fallback"]),
                (&json!("gemini/fake-model"), &json!([]))
            );
            without(
                s.clone(),
                &[
                    "damaged",
                    "recovery_choices",
                    "origin",
                    "model",
                    "fallback",
                    "usage",
                    "origin_kind",
                    "title_set",
                    "archived_at_ms",
                    "deleted_at_ms",
                    "context",
                    "can_redo",
                ],
            )
        })
        .collect();
    assert_eq!(
        listed,
        expected("sessions.json")["sessions"]
            .as_array()
            .unwrap()
            .clone()
    );
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["damaged_sessions"], Value::Array(vec![]));

    // And it goes on: the plain session takes a new turn.
    let a = expected("history-a.json")["session"]
        .as_str()
        .unwrap()
        .to_string();
    omni.ctl(&["send", "-s", &a, "still here?"]).ok();
}
