//! History from other tools, brought in through the real `omnictl import` into a real
//! omnid: Claude Code project files, gemini-cli's chats, checkpoints and session files and
//! Codex rollout files (tests/fixtures/import: some written by hand from the documented
//! shapes, some by the tools themselves), each with branches and a torn last line.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::path::{Path, PathBuf};

use omni_tests::harness::Omni;
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/import")
}

/// The listed sessions whose origin names `tool`.
fn from_tool(sessions: &Value, tool: &str) -> Vec<Value> {
    let prefix = format!("import ({tool}: ");
    sessions["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["origin"].as_str().is_some_and(|o| o.starts_with(&prefix)))
        .cloned()
        .collect()
}

#[test]
fn a_folder_of_every_tool_s_files_comes_in_with_branches_calls_and_usage_once() {
    let omni = Omni::start();
    let folder = fixtures();
    let out = omni
        .ctl(&["--json", "import", folder.to_str().unwrap()])
        .ok();
    let report = out.json();
    assert_eq!(report["imported"], 8, "{report}");
    assert_eq!(report["problems"], serde_json::json!([]), "{report}");
    let warnings = report["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("branches.jsonl:17: the last line is cut short")),
        "a torn last line is named with its file and line: {warnings:?}"
    );

    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(from_tool(&sessions, "claude-code").len(), 2, "{sessions}");
    assert_eq!(from_tool(&sessions, "gemini-cli").len(), 4, "{sessions}");
    assert_eq!(from_tool(&sessions, "codex").len(), 2, "{sessions}");

    // Claude Code: the uuid tree with both branches; the head where the file left it.
    let claude = "5f0c1c52-0000-4000-8000-000000000001";
    let branches = omni.ctl(&["--json", "branches", "-s", claude]).ok().json();
    let leaves: Vec<&str> = branches["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["last_line"].as_str().unwrap())
        .collect();
    assert_eq!(leaves, ["Deleted b.txt.", "Kept both."], "{branches}");
    assert_eq!(branches["head"], 6);

    // Codex: calls and their outputs, a rollback kept as a branch, models per turn, usage.
    let codex = "0199a213-81c0-7800-8aa1-bbab2a035a53";
    let history = omni.history_of(codex);
    let entries = history["entries"].as_array().unwrap();
    let parts = entries[1]["parts"].as_array().unwrap();
    assert!(parts[0]["content"]["thought"].is_string(), "{history}");
    assert_eq!(parts[1]["content"]["function_call"]["name"], "shell");
    assert_eq!(entries[2]["role"], "tool");
    assert!(
        entries[4]["reverted"].as_bool().unwrap(),
        "the rolled-back turn"
    );
    assert_eq!(entries.last().unwrap()["model"]["model"], "gpt-5");
    let usage = omni.ctl(&["--json", "usage", "-s", codex]).ok().json();
    assert_eq!(usage["total"]["input"], 6750, "{usage}");
    assert_eq!(usage["total"]["cached"], 6100, "{usage}");

    // A saved chat keeps no times: it dates from its file.
    let saved = &from_tool(&sessions, "gemini-cli")
        .into_iter()
        .find(|s| s["origin"].as_str().unwrap().contains("checkpoint-files"))
        .unwrap()["created_at_ms"];
    assert!(saved.as_u64().unwrap() > 1_700_000_000_000, "{saved}");

    // Imported turns are found by search, reverted ones marked.
    omni_tests::proxy::eventually("the imported turns are searchable", || {
        let found = omni.ctl(&["--json", "search", "delete one"]).ok().json();
        found["hits"].as_array().is_some_and(|hits| {
            hits.iter()
                .any(|hit| hit["session"] == codex && hit["reverted"] == true)
        })
    });

    let again = omni
        .ctl(&["--json", "import", folder.to_str().unwrap()])
        .ok()
        .json();
    assert_eq!(
        (&again["imported"], &again["already_here"]),
        (&0.into(), &8.into())
    );
    let after = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(after["sessions"].as_array().unwrap().len(), 8);
}

#[test]
fn a_file_forced_to_the_wrong_tool_is_refused_by_name_and_nothing_is_added() {
    let omni = Omni::start();
    let file = fixtures().join("claude-code/branches.jsonl");
    let out = omni
        .ctl(&["import", "--from", "codex", file.to_str().unwrap()])
        .fails(1, &["branches.jsonl", "not a codex file"]);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("1 problem (above); nothing was imported"),
        "the last line says what happened: {}",
        out.stderr
    );
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(sessions["sessions"], serde_json::json!([]));
}
