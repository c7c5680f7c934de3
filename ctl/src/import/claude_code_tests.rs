use std::path::Path;

use omni_proto::{PartContent, Usage};

use crate::import::testing::outline;
use crate::import::{Source, read_file};

const BRANCHES: &[u8] = include_bytes!("../../../tests/fixtures/import/claude-code/branches.jsonl");
const REAL: &[u8] =
    include_bytes!("../../../tests/fixtures/import/claude-code/real-branches.jsonl");

fn read(bytes: &[u8]) -> crate::import::Read {
    let path = Path::new("projects/-home-user-project/5f0c1c52.jsonl");
    read_file(path, bytes, None).expect("a Claude Code file reads")
}

#[test]
fn every_branch_is_read_and_a_later_summary_names_the_head() {
    let read = read(BRANCHES);
    let [session] = read.sessions.as_slice() else {
        panic!("one session: {read:?}")
    };
    assert_eq!(
        outline(session),
        [
            (1, 0, "user", "List the files here".to_string()),
            (
                2,
                1,
                "model",
                "thought: I should run ls. | call Bash toolu_1".to_string()
            ),
            (3, 2, "tool", "result Bash toolu_1".to_string()),
            (
                4,
                3,
                "model",
                "There are two files: a.txt and b.txt.".to_string()
            ),
            (5, 4, "user", "Delete b.txt".to_string()),
            (6, 5, "model", "Deleted b.txt.".to_string()),
            (7, 4, "user", "Actually, keep both files".to_string()),
            (8, 7, "model", "Kept both.".to_string()),
        ]
    );
    assert_eq!(
        session.head, 6,
        "the summary written after the last message names a3"
    );
    assert_eq!(session.title, "Listing and deleting files");
    assert!(!session.title_set);
    assert_eq!(session.id, "5f0c1c52-0000-4000-8000-000000000001");
    assert_eq!(
        session.origin.as_deref(),
        Some("import (claude-code: projects/-home-user-project/5f0c1c52.jsonl)")
    );
    assert_eq!(session.model.as_deref(), Some("anthropic/claude-opus-4-1"));
    assert_eq!(session.created_at_ms, 1_748_772_000_000);
}

#[test]
fn tool_calls_results_thoughts_and_usage_are_kept() {
    let read = read(BRANCHES);
    let session = &read.sessions[0];
    let call = &session.nodes[1];
    assert_eq!(call.parts[0].thought_signature.as_deref(), Some("sig-1"));
    let PartContent::FunctionCall { args_json, .. } = &call.parts[1].content else {
        panic!("a call: {call:?}")
    };
    assert_eq!(args_json, r#"{"command":"ls"}"#);
    let info = call.model.as_ref().expect("model info");
    assert_eq!(
        (info.provider.as_str(), info.model.as_str()),
        ("anthropic", "claude-sonnet-4-5")
    );
    assert_eq!(info.finish_reason.as_deref(), Some("tool_use"));
    assert_eq!(
        info.usage.map(|u| u.answer_tokens),
        Some(25),
        "the answer's last record counts"
    );
    let PartContent::FunctionResponse { response_json, .. } = &session.nodes[2].parts[0].content
    else {
        panic!("a result")
    };
    assert_eq!(response_json, "a.txt\nb.txt");
    let usage = session.nodes[3].model.as_ref().and_then(|m| m.usage);
    let expected = Usage {
        prompt_tokens: 130,
        answer_tokens: 12,
        thought_tokens: 0,
        total_tokens: 142,
        cached_tokens: 100,
    };
    assert_eq!(usage, Some(expected));
}

#[test]
fn a_torn_last_line_a_bad_line_and_sidechains_are_reported_not_fatal() {
    let read = read(BRANCHES);
    let lines: Vec<_> = read
        .warnings
        .iter()
        .map(|w| (w.line, w.message.clone()))
        .collect();
    assert!(
        lines
            .iter()
            .any(|(l, m)| *l == Some(15) && m.starts_with("not JSON")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|(l, m)| *l == Some(17) && m.contains("cut short")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|(l, m)| l.is_none() && m.contains("sidechain")),
        "{lines:?}"
    );
    let text = read.warnings[0].to_string();
    assert!(
        text.starts_with("projects/-home-user-project/5f0c1c52.jsonl:"),
        "{text}"
    );
}

#[test]
fn without_a_later_summary_the_last_message_is_the_head() {
    let text = String::from_utf8_lossy(BRANCHES);
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("Listing and deleting"))
        .collect();
    let read = read(kept.join("\n").as_bytes());
    assert_eq!(read.sessions[0].head, 8);
    assert_eq!(
        read.sessions[0].title, "",
        "no summary names a leaf here: the daemon titles it"
    );
}

#[test]
fn a_file_of_only_a_subagent_is_its_session() {
    let text = String::from_utf8_lossy(BRANCHES);
    let line = text
        .lines()
        .find(|l| l.contains("Subagent task"))
        .expect("the sidechain line");
    let read = read(line.as_bytes());
    assert_eq!(outline(&read.sessions[0])[0].3, "Subagent task");
}

#[test]
fn a_file_written_by_claude_code_reads_with_its_branch() {
    assert_eq!(
        crate::import::detect(Path::new("x.jsonl"), REAL),
        Some(Source::ClaudeCode)
    );
    let read = read(REAL);
    let [session] = read.sessions.as_slice() else {
        panic!("one session: {read:?}")
    };
    let outline = outline(session);
    let children = |id: u64| session.nodes.iter().filter(|n| n.parent == id).count();
    let branched = session.nodes.iter().any(|n| children(n.id) >= 2);
    assert!(
        branched,
        "the prompt resumed at an earlier answer starts a branch: {outline:#?}"
    );
    let head = &outline[usize::try_from(session.head).expect("small") - 1];
    assert_eq!(
        (head.2, head.3.as_str()),
        ("model", "Kept both."),
        "{outline:#?}"
    );
    assert_eq!(
        outline.len(),
        6,
        "attachments and markers make no node: {outline:#?}"
    );
    let info = session.nodes[1]
        .model
        .as_ref()
        .expect("an answer says its model");
    assert_eq!(info.provider, "anthropic");
    assert!(info.usage.is_some_and(|u| u.answer_tokens > 0), "{info:?}");
    assert_eq!(
        read.warnings.len(),
        1,
        "only the torn line: {:?}",
        read.warnings
    );
}

#[test]
fn claude_codes_own_notices_name_no_model() {
    let text = [
        r#"{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","timestamp":"2025-06-01T10:00:00Z","sessionId":"s"}"#,
        r#"{"parentUuid":"u","type":"assistant","message":{"id":"m","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500"}]},"uuid":"a","timestamp":"2025-06-01T10:00:01Z","sessionId":"s","isApiErrorMessage":true}"#,
    ]
    .join("\n");
    let read = read(text.as_bytes());
    let session = &read.sessions[0];
    assert_eq!(session.nodes[1].model, None);
    assert_eq!(session.model, None);
    assert_eq!(session.head, 2);
}

#[test]
fn a_cycle_of_parents_and_a_repeated_uuid_are_named_as_what_they_are() {
    let text = [
        r#"{"parentUuid":"b","type":"user","message":{"role":"user","content":"one"},"uuid":"a","timestamp":"2025-06-01T10:00:00Z","sessionId":"s"}"#,
        r#"{"parentUuid":"a","type":"user","message":{"role":"user","content":"two"},"uuid":"b","timestamp":"2025-06-01T10:00:01Z","sessionId":"s"}"#,
        r#"{"parentUuid":"b","type":"user","message":{"role":"user","content":"three"},"uuid":"b","timestamp":"2025-06-01T10:00:02Z","sessionId":"s"}"#,
        r#"{"parentUuid":"gone","type":"user","message":{"role":"user","content":"four"},"uuid":"d","timestamp":"2025-06-01T10:00:03Z","sessionId":"s"}"#,
    ]
    .join("\n");
    let read = read(text.as_bytes());
    let said: Vec<String> = read.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(
        said[0].contains("its parent b comes later in the file (a cycle"),
        "{said:?}"
    );
    assert!(
        said[1].contains("uuid b was used by an earlier message"),
        "{said:?}"
    );
    assert!(
        said[2].contains("its parent gone is not in the file"),
        "{said:?}"
    );
}
