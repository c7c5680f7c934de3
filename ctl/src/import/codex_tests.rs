use std::path::Path;

use omni_proto::{PartContent, Usage};

use crate::import::testing::outline;
use crate::import::{Source, detect, read_file};

const ROLLOUT: &[u8] = include_bytes!(
    "../../../tests/fixtures/import/codex/rollout-2025-06-02T08-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl"
);
const REAL: &[u8] = include_bytes!("../../../tests/fixtures/import/codex/real-resumed.jsonl");

fn read(bytes: &[u8]) -> crate::import::Read {
    let path = Path::new("sessions/2025/06/02/rollout.jsonl");
    read_file(path, bytes, None).expect("a rollout reads")
}

#[test]
fn a_rollback_makes_a_branch_and_injected_context_is_no_prompt() {
    let read = read(ROLLOUT);
    let [session] = read.sessions.as_slice() else {
        panic!("one session: {read:?}")
    };
    assert_eq!(
        outline(session),
        [
            (1, 0, "user", "Count the files".to_string()),
            (
                2,
                1,
                "model",
                "thought: **Listing** the folder first | call shell call_1".to_string()
            ),
            (3, 2, "tool", "result shell call_1".to_string()),
            (4, 3, "model", "There are two files.".to_string()),
            (5, 4, "user", "Now delete one".to_string()),
            (6, 5, "model", "call apply_patch call_2".to_string()),
            (7, 6, "tool", "result apply_patch call_2".to_string()),
            (8, 7, "model", "Deleted b.txt.".to_string()),
            (9, 4, "user", "Keep both instead".to_string()),
            (10, 9, "model", "Kept both.".to_string()),
        ]
    );
    assert_eq!(session.head, 10);
    assert_eq!(session.id, "0199a213-81c0-7800-8aa1-bbab2a035a53");
    assert_eq!(session.title, "");
    assert_eq!(
        session.model.as_deref(),
        Some("openai/gpt-5"),
        "the last turn's model"
    );
    assert_eq!(
        session.origin.as_deref(),
        Some("import (codex: sessions/2025/06/02/rollout.jsonl)")
    );
}

#[test]
fn calls_outputs_models_and_usage_are_kept() {
    let read = read(ROLLOUT);
    let nodes = &read.sessions[0].nodes;
    let PartContent::FunctionCall { args_json, .. } = &nodes[1].parts[1].content else {
        panic!("a call")
    };
    assert_eq!(args_json, r#"{"command":["ls"]}"#);
    let PartContent::FunctionCall { args_json, .. } = &nodes[5].parts[0].content else {
        panic!("a custom call")
    };
    assert!(args_json.contains("Delete File: b.txt"), "{args_json}");
    let PartContent::FunctionResponse { response_json, .. } = &nodes[2].parts[0].content else {
        panic!("an output")
    };
    assert!(response_json.contains("a.txt"), "{response_json}");
    let info = nodes[1].model.as_ref().expect("model info");
    assert_eq!(
        (info.provider.as_str(), info.model.as_str()),
        ("openai", "gpt-5-codex")
    );
    let expected = Usage {
        prompt_tokens: 1200,
        answer_tokens: 30,
        thought_tokens: 10,
        total_tokens: 1230,
        cached_tokens: 1000,
    };
    assert_eq!(info.usage, Some(expected));
    assert_eq!(
        nodes[9].model.as_ref().map(|m| m.model.as_str()),
        Some("gpt-5")
    );
}

#[test]
fn a_bad_line_and_a_torn_last_line_are_reported() {
    let read = read(ROLLOUT);
    let lines: Vec<_> = read
        .warnings
        .iter()
        .map(|w| (w.line, w.message.as_str()))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0].0, Some(11));
    assert_eq!(lines[1].0, Some(25));
    assert!(lines[1].1.contains("cut short"));
}

#[test]
fn a_rollout_written_by_codex_reads() {
    assert_eq!(
        detect(Path::new("rollout.jsonl"), REAL),
        Some(Source::Codex)
    );
    let read = read(REAL);
    let [session] = read.sessions.as_slice() else {
        panic!("one session: {read:?}")
    };
    let first = &outline(session)[0];
    assert_eq!(
        (first.1, first.2),
        (0, "user"),
        "the environment context is no prompt"
    );
    assert!(session.nodes.iter().any(|n| {
        n.parts
            .iter()
            .any(|p| matches!(p.content, PartContent::FunctionResponse { .. }))
    }));
    let prompts = session
        .nodes
        .iter()
        .filter(|n| n.role == omni_proto::Role::User)
        .count();
    assert_eq!(prompts, 2, "the first run's prompt and the resumed run's");
    let with_usage = session
        .nodes
        .iter()
        .filter_map(|n| n.model.as_ref()?.usage)
        .count();
    assert!(with_usage > 0);
    assert_eq!(
        read.warnings.len(),
        1,
        "only the torn line: {:?}",
        read.warnings
    );
}
