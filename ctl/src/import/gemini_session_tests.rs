use std::path::Path;

use omni_proto::Usage;

use crate::import::testing::outline;
use crate::import::{Source, detect, read_file};

const SESSION: &[u8] = include_bytes!(
    "../../../tests/fixtures/import/gemini-cli/session-2025-06-04T12-00-9d6f2a10.jsonl"
);

fn path() -> &'static Path {
    Path::new("tmp/f3b1/chats/session-2025-06-04T12-00-9d6f2a10.jsonl")
}

#[test]
fn a_rewind_leaves_a_branch_and_updates_replace_a_message() {
    assert_eq!(detect(path(), SESSION), Some(Source::GeminiCli));
    let read = read_file(path(), SESSION, None).expect("a session file reads");
    let [session] = read.sessions.as_slice() else {
        panic!("one session: {read:?}")
    };
    assert_eq!(
        outline(session),
        [
            (1, 0, "user", "Read a.txt".to_string()),
            (
                2,
                1,
                "model",
                "thought: **Reading** I will read a.txt. | call read_file read_file-1".to_string()
            ),
            (3, 2, "tool", "result read_file read_file-1".to_string()),
            (4, 3, "model", "It says alpha.".to_string()),
            (5, 4, "user", "Now read b.txt".to_string()),
            (6, 5, "model", "b.txt says beta.".to_string()),
            (7, 4, "user", "Summarise a.txt instead".to_string()),
            (8, 7, "model", "A one-word file: alpha.".to_string()),
        ]
    );
    assert_eq!(session.head, 8);
    assert_eq!(session.title, "Reading the project files");
    assert_eq!(session.id, "9d6f2a10-4c1e-4b7a-9f00-1234abcd5678");
    assert_eq!(session.model.as_deref(), Some("gemini/gemini-2.5-pro"));
    let usage = session.nodes[1].model.as_ref().and_then(|m| m.usage);
    let expected = Usage {
        prompt_tokens: 900,
        answer_tokens: 20,
        thought_tokens: 40,
        total_tokens: 960,
        cached_tokens: 512,
    };
    assert_eq!(
        usage,
        Some(expected),
        "the record's update brought its tokens"
    );
    assert_eq!(
        session.nodes[5].model.as_ref().map(|m| m.model.as_str()),
        Some("gemini-2.5-flash")
    );
}

#[test]
fn a_bad_line_and_a_torn_last_line_are_reported() {
    let read = read_file(path(), SESSION, None).expect("reads");
    let lines: Vec<_> = read
        .warnings
        .iter()
        .map(|w| (w.line, w.message.as_str()))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0], (Some(11), "not a JSON object; skipped"));
    assert_eq!(lines[1].0, Some(15));
    assert!(lines[1].1.contains("cut short"));
}

#[test]
fn the_first_format_is_one_json_document() {
    let whole = r#"{"sessionId":"s1","projectHash":"p","startTime":"2025-05-01T09:00:00Z",
        "lastUpdated":"2025-05-01T09:05:00Z","messages":[
        {"id":"a","timestamp":"2025-05-01T09:00:01Z","type":"user","content":"Hello"},
        {"id":"b","timestamp":"2025-05-01T09:00:02Z","type":"gemini","content":"Hi","model":"gemini-2.5-pro"}]}"#;
    let path = Path::new("chats/session-2025-05-01T09-00-s1.json");
    assert_eq!(detect(path, whole.as_bytes()), Some(Source::GeminiCli));
    let read = read_file(path, whole.as_bytes(), None).expect("reads");
    let session = &read.sessions[0];
    assert_eq!(outline(session).len(), 2);
    assert_eq!(session.updated_at_ms, 1_746_090_300_000);
}

#[test]
fn a_replaced_conversation_keeps_what_it_repeats() {
    let text = [
        r#"{"sessionId":"s","projectHash":"p","startTime":"2025-05-01T09:00:00Z"}"#,
        r#"{"id":"a","type":"user","content":"one"}"#,
        r#"{"id":"b","type":"gemini","content":"two"}"#,
        r#"{"$set":{"messages":[{"id":"a","type":"user","content":"one"},{"id":"c","type":"gemini","content":"summary"}]}}"#,
    ]
    .join("\n")
        + "\n";
    let read = read_file(
        Path::new("s.jsonl"),
        text.as_bytes(),
        Some(Source::GeminiCli),
    )
    .expect("reads");
    let outline = outline(&read.sessions[0]);
    assert_eq!(outline.len(), 3, "{outline:?}");
    assert_eq!((outline[2].1, outline[2].3.as_str()), (1, "summary"));
    assert_eq!(read.sessions[0].head, 3);
}

const REAL: &[u8] = include_bytes!("../../../tests/fixtures/import/gemini-cli/real-resumed.jsonl");

#[test]
fn a_session_written_by_gemini_cli_and_resumed_reads_once() {
    let path = Path::new("chats/session-2026-11-25T01-33-32217669.jsonl");
    assert_eq!(detect(path, REAL), Some(Source::GeminiCli));
    let read = read_file(path, REAL, None).expect("reads");
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
                "call list_directory list_directory__call-1".to_string()
            ),
            (
                3,
                2,
                "tool",
                "result list_directory list_directory__call-1".to_string()
            ),
            (4, 3, "model", "There is one file.".to_string()),
            (5, 4, "user", "What is in a.txt?".to_string()),
            (6, 5, "model", "It holds alpha.".to_string()),
        ],
        "the context it sends first is no prompt, and the conversation a resume writes \
         again is the same one"
    );
    assert_eq!(session.head, 6);
    assert_eq!(session.id, "32217669-071d-489b-90d5-217b9d1de687");
    let lines: Vec<_> = read.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, [Some(20)], "only the torn line: {:?}", read.warnings);
}

/// An answer's record updated without its model (a tool call's result written back) keeps
/// the model named before, and an answer that names none was made by the latest one named:
/// no `gemini/unknown` in the usage.
#[test]
fn an_answer_whose_record_names_no_model_keeps_the_one_named_before() {
    let lines = [
        r#"{"sessionId":"00000000-0000-4000-8000-0000000000dd","projectHash":"p","startTime":"2025-06-04T12:00:00.000Z","lastUpdated":"2025-06-04T12:00:00.000Z","kind":"main"}"#,
        r#"{"id":"u1","timestamp":"2025-06-04T12:00:01.000Z","type":"user","content":[{"text":"one"}]}"#,
        r#"{"id":"g1","timestamp":"2025-06-04T12:00:02.000Z","type":"gemini","content":"first","model":"gemini-2.5-pro","tokens":{"input":5,"output":2,"total":7}}"#,
        r#"{"id":"g1","timestamp":"2025-06-04T12:00:02.000Z","type":"gemini","content":"first, updated"}"#,
        r#"{"id":"u2","timestamp":"2025-06-04T12:00:03.000Z","type":"user","content":[{"text":"two"}]}"#,
        r#"{"id":"g2","timestamp":"2025-06-04T12:00:04.000Z","type":"gemini","content":"second"}"#,
    ]
    .join("\n");
    let read = read_file(path(), lines.as_bytes(), None).expect("a session file reads");
    let session = &read.sessions[0];
    let models: Vec<&str> = session
        .nodes
        .iter()
        .filter_map(|n| n.model.as_ref().map(|m| m.model.as_str()))
        .collect();
    assert_eq!(models, ["gemini-2.5-pro", "gemini-2.5-pro"]);
    assert!(
        session.nodes[1].model.as_ref().unwrap().usage.is_some(),
        "its usage is kept"
    );
}
