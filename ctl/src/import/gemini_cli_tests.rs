use std::path::Path;

use omni_proto::PartContent;

use crate::import::testing::outline;
use crate::import::{Source, detect, read_file};

const SAVED: &[u8] =
    include_bytes!("../../../tests/fixtures/import/gemini-cli/checkpoint-files%20chat.json");
const RESTORE: &[u8] = include_bytes!(
    "../../../tests/fixtures/import/gemini-cli/2025-06-03T09-00-00_000Z-hello.txt-write_file.json"
);

#[test]
fn a_saved_chat_reads_with_its_tag_as_title() {
    let path = Path::new("tmp/f3b1/checkpoint-files%20chat.json");
    assert_eq!(detect(path, SAVED), Some(Source::GeminiCli));
    let read = read_file(path, SAVED, None).expect("a saved chat reads");
    let session = &read.sessions[0];
    assert_eq!(
        outline(session),
        [
            (1, 0, "user", "What is in this folder?".to_string()),
            (
                2,
                1,
                "model",
                "thought: Let me look. | call list_directory c1".to_string()
            ),
            (3, 2, "tool", "result list_directory c1".to_string()),
            (4, 3, "model", "Two files: a.txt and b.txt.".to_string()),
        ]
    );
    assert_eq!(session.head, 4);
    assert_eq!(session.title, "files chat");
    assert_eq!(
        session.nodes[1].parts[1].thought_signature.as_deref(),
        Some("c2lnLTE=")
    );
    let PartContent::FunctionResponse { response_json, .. } = &session.nodes[2].parts[0].content
    else {
        panic!("a result")
    };
    assert_eq!(response_json, r#"{"output":"a.txt\nb.txt"}"#);
    assert!(read.warnings.is_empty());
}

#[test]
fn an_older_saved_chat_is_a_bare_list() {
    let list =
        r#"[{"role":"user","parts":[{"text":"Hi"}]},{"role":"model","parts":[{"text":"Hello"}]}]"#;
    let path = Path::new("checkpoint-old.json");
    assert_eq!(detect(path, list.as_bytes()), Some(Source::GeminiCli));
    let read = read_file(path, list.as_bytes(), None).expect("reads");
    assert_eq!(outline(&read.sessions[0]).len(), 2);
    assert_eq!(read.sessions[0].title, "old");
}

#[test]
fn a_restore_checkpoint_reads_its_client_history() {
    let path = Path::new("checkpoints/2025-06-03T09-00-00_000Z-hello.txt-write_file.json");
    assert_eq!(detect(path, RESTORE), Some(Source::GeminiCli));
    let read = read_file(path, RESTORE, None).expect("a checkpoint reads");
    let outline = outline(&read.sessions[0]);
    assert_eq!(outline[1], (2, 1, "model", "call write_file -".to_string()));
    assert_eq!(read.sessions[0].title, "");
    assert_eq!(
        read.sessions[0].created_at_ms, 1_748_941_200_000,
        "the time in its name"
    );
}

#[test]
fn a_json_file_of_another_kind_is_not_taken_for_a_chat() {
    let logs = r#"[{"sessionId":"s","messageId":0,"type":"user","message":"hi","timestamp":"2025-06-01T00:00:00Z"}]"#;
    assert_eq!(detect(Path::new("logs.json"), logs.as_bytes()), None);
    assert!(read_file(Path::new("logs.json"), logs.as_bytes(), None).is_err());
}

#[test]
fn the_context_a_saved_chat_starts_with_is_no_turn() {
    let list = r#"{"history":[
        {"role":"user","parts":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]},
        {"role":"model","parts":[{"text":"Got it. Thanks for the context!"}]},
        {"role":"user","parts":[{"text":"Hi"}]},
        {"role":"model","parts":[{"text":"Hello"}]}]}"#;
    let read = read_file(Path::new("checkpoint-ctx.json"), list.as_bytes(), None).expect("reads");
    let outline = outline(&read.sessions[0]);
    assert_eq!(outline[0], (1, 0, "user", "Hi".to_string()));
    assert_eq!(outline.len(), 2);
}
