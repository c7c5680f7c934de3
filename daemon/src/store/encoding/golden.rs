//! Golden bytes of every stored record format, old ones included: one checked-in sample
//! each (`golden/*.hex`). Reading a sample must give the value below, and writing the value
//! in the current format must give the sample's bytes, so no change of a type (the wire
//! protocol's included) can change what is on disk unnoticed.

use crate::model::{ModelInfo, Part, PartContent, Role, Usage};
use uuid::Uuid;

use super::codec;
use super::formats::{MOVE_FORMAT, NODE_FORMAT, SESSION_FORMAT};
use super::formats::{decode_move, decode_node, decode_session};
use super::legacy::{SessionRecordV1, SessionRecordV2, SessionRecordV3, SessionRecordV4};
use crate::model::{
    ModelUsage, MoveKind, MoveRecord, NodeRecord, Recovery, SessionRecord, Suspension, ToolResults,
};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes a hex sample of `golden/` holds.
pub(in crate::store) fn unhex(text: &str) -> Vec<u8> {
    let text: String = text.split_whitespace().collect();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("a hex sample"))
        .collect()
}

const ID: Uuid = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);

fn v1() -> SessionRecordV1 {
    SessionRecordV1 {
        id: ID,
        title: "a title".into(),
        created_at_ms: 1_790_000_000_000,
        updated_at_ms: 1_790_000_000_500,
        head: 3,
        nodes: 4,
        moves: 5,
        redo_top: Some(2),
    }
}

fn suspension() -> Suspension {
    Suspension {
        at_ms: 1_790_000_000_900,
        last_error: "the model API answered HTTP 500".into(),
    }
}

fn v2() -> SessionRecordV2 {
    SessionRecordV2 {
        v1: v1(),
        consecutive_failures: 3,
        suspended: Some(suspension()),
    }
}

fn v3() -> SessionRecordV3 {
    SessionRecordV3 {
        v2: SessionRecordV2 {
            v1: v1(),
            consecutive_failures: 1,
            suspended: Some(suspension()),
        },
        tools_json: Some(r#"[{"name":"get_weather"}]"#.into()),
        needs_recovery: Some(Recovery {
            reason: "HTTP 400".into(),
            error_id: Some("20261122T010203Z-a1b2c3".into()),
            at_ms: 1_790_000_000_700,
            rollback_to: Some(1),
        }),
        tool_results: Some(ToolResults {
            node: 2,
            results: vec![(1, r#"{"output":"noon"}"#.into())],
        }),
    }
}

fn v4() -> SessionRecordV4 {
    SessionRecordV4 {
        v3: v3(),
        model: Some("local/qwen2.5:7b".into()),
        fallback: vec!["gemini-2.5-flash".into(), "local/llama3".into()],
        system: Some("Answer briefly.".into()),
    }
}

fn session_v5() -> SessionRecord {
    SessionRecord {
        title_set: true,
        archived_at_ms: Some(1_790_000_001_000),
        deleted_at_ms: Some(1_790_000_002_000),
        usage: vec![ModelUsage {
            model: "gemini/gemini-2.5-flash".into(),
            answers: 2,
            input: 900,
            cached: 400,
            output: 70,
            thinking: 12,
        }],
        ..v4().into()
    }
}

fn node_v3() -> NodeRecord {
    let part = |content| Part {
        content,
        thought_signature: None,
    };
    NodeRecord {
        id: 2,
        parent: 1,
        role: Role::Model,
        parts: vec![
            part(PartContent::Thought("hmm".into())),
            Part {
                content: PartContent::Text("hello".into()),
                thought_signature: Some("c2ln".into()),
            },
            part(PartContent::FunctionCall {
                id: Some("c1".into()),
                name: "get_weather".into(),
                args_json: r#"{"city":"Paris"}"#.into(),
            }),
            part(PartContent::FunctionResponse {
                id: None,
                name: "get_time".into(),
                response_json: r#"{"output":1}"#.into(),
            }),
            part(PartContent::Other {
                json: r#"{"inlineData":{}}"#.into(),
            }),
        ],
        created_at_ms: 1_790_000_000_100,
        model: Some(ModelInfo {
            model: "gemini-2.5-flash".into(),
            model_version: Some("gemini-2.5-flash-001".into()),
            finish_reason: Some("STOP".into()),
            usage: Some(Usage {
                prompt_tokens: 8,
                answer_tokens: 3,
                thought_tokens: 2,
                total_tokens: 13,
                cached_tokens: 5,
            }),
            attempts: 2,
            latency_ms: 1234,
            interrupted: false,
            provider: "local".into(),
        }),
    }
}

fn move_record(kind: MoveKind) -> MoveRecord {
    MoveRecord {
        seq: 5,
        kind,
        from: 4,
        to: 2,
        at_ms: 1_790_000_000_600,
        prev_redoable: Some(3),
        redoes: None,
    }
}

#[test]
fn old_session_formats_read_as_their_samples_say() {
    let v1_bytes = unhex(include_str!("golden/session-v1.hex"));
    assert_eq!(hex(&v1_bytes), hex(&codec::encode(&v1(), 1).unwrap()));
    let read = decode_session(&v1_bytes).unwrap();
    assert_eq!(
        (read.head, read.redo_top, read.suspended),
        (3, Some(2), None)
    );

    let v2_bytes = unhex(include_str!("golden/session-v2.hex"));
    assert_eq!(hex(&v2_bytes), hex(&codec::encode(&v2(), 2).unwrap()));
    let read = decode_session(&v2_bytes).unwrap();
    assert_eq!(read.consecutive_failures, 3);
    assert_eq!(read.suspended, Some(suspension()));
    assert_eq!(read.tools_json, None);

    let v3_bytes = unhex(include_str!("golden/session-v3.hex"));
    assert_eq!(hex(&v3_bytes), hex(&codec::encode(&v3(), 3).unwrap()));
    let read = decode_session(&v3_bytes).unwrap();
    assert_eq!(read, SessionRecord::from(SessionRecordV4::from(v3())));
    assert_eq!(
        (read.model, read.fallback, read.system),
        (None, vec![], None)
    );

    let v4_bytes = unhex(include_str!("golden/session-v4.hex"));
    assert_eq!(hex(&v4_bytes), hex(&codec::encode(&v4(), 4).unwrap()));
    let read = decode_session(&v4_bytes).unwrap();
    assert_eq!(read, SessionRecord::from(v4()));
    assert_eq!(read.model.as_deref(), Some("local/qwen2.5:7b"));
    assert_eq!(
        (read.title_set, read.archived_at_ms, read.deleted_at_ms),
        (false, None, None)
    );
    assert!(read.usage.is_empty());
}

/// The current sample as node formats 1 and 2 held it: no cached tokens.
fn node_before_cached_tokens() -> NodeRecord {
    let mut node = node_v3();
    if let Some(usage) = node.model.as_mut().and_then(|m| m.usage.as_mut()) {
        usage.cached_tokens = 0;
    }
    node
}

#[test]
fn old_nodes_read_as_answered_by_gemini() {
    let v1_bytes = unhex(include_str!("golden/node-v1.hex"));
    let read = decode_node(&v1_bytes).unwrap();
    let mut expected = node_before_cached_tokens();
    if let Some(info) = &mut expected.model {
        info.provider = "gemini".into();
    }
    assert_eq!(read, expected);
}

#[test]
fn format_2_nodes_read_with_no_cached_tokens() {
    let v2_bytes = unhex(include_str!("golden/node-v2.hex"));
    assert_eq!(decode_node(&v2_bytes).unwrap(), node_before_cached_tokens());
}

#[test]
fn current_formats_write_exactly_their_samples() {
    let session = unhex(include_str!("golden/session-v5.hex"));
    assert_eq!(
        hex(&codec::encode(&session_v5(), SESSION_FORMAT).unwrap()),
        hex(&session)
    );
    assert_eq!(decode_session(&session).unwrap(), session_v5());

    let node = unhex(include_str!("golden/node-v3.hex"));
    assert_eq!(
        hex(&codec::encode(&node_v3(), NODE_FORMAT).unwrap()),
        hex(&node)
    );
    assert_eq!(decode_node(&node).unwrap(), node_v3());

    // Format 1 moves had only the plain kinds; format 2 added the recovery ones.
    let old_move = unhex(include_str!("golden/move-v1.hex"));
    assert_eq!(decode_move(&old_move).unwrap(), move_record(MoveKind::Undo));
    let moves = unhex(include_str!("golden/move-v2.hex"));
    let all = [
        MoveKind::Prompt,
        MoveKind::Answer,
        MoveKind::Undo,
        MoveKind::Back,
        MoveKind::Redo,
        MoveKind::Checkout,
        MoveKind::ToolResults,
        MoveKind::DeepRollback,
        MoveKind::ClearTurn,
        MoveKind::Ignore,
        MoveKind::Retry,
    ];
    let written: String = all
        .iter()
        .map(|kind| hex(&codec::encode(&move_record(*kind), MOVE_FORMAT).unwrap()) + "\n")
        .collect();
    assert_eq!(written.split_whitespace().collect::<String>(), hex(&moves));
}

/// Writes the current formats' samples: `OMNI_WRITE_GOLDEN=1 cargo test -p omnid --lib golden`
/// (only when a format version changes; the old samples stay as they are).
#[test]
fn write_current_samples_when_asked() {
    if std::env::var_os("OMNI_WRITE_GOLDEN").is_none() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/encoding/golden");
    let write = |name: &str, bytes: Vec<u8>| {
        std::fs::write(dir.join(name), hex(&bytes) + "\n").expect("a writable source tree")
    };
    write(
        &format!("session-v{SESSION_FORMAT}.hex"),
        codec::encode(&session_v5(), SESSION_FORMAT).unwrap(),
    );
    write(
        &format!("node-v{NODE_FORMAT}.hex"),
        codec::encode(&node_v3(), NODE_FORMAT).unwrap(),
    );
}
