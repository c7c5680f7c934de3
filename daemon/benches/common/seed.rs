//! Stores written through the daemon's own store code (`omnid::store`), as the daemon
//! writes them: each turn a node, the move that makes it the head and the session's
//! record, in one transaction; one sync at the end instead of one per turn.

use futures_util::FutureExt;
use std::path::Path;

use omnid::model::{MoveKind, MoveRecord, NodeRecord, Part, Role, SessionRecord};
use omnid::store::{Change, Store};
use uuid::Uuid;

/// How long each turn's text is, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub prompt: usize,
    pub answer: usize,
}

/// One line per turn, as the older figures used.
pub const SHORT: Sizes = Sizes {
    prompt: 60,
    answer: 60,
};

/// A chat as people write it: a few sentences asked, a few paragraphs answered.
pub const CHAT: Sizes = Sizes {
    prompt: 300,
    answer: 1500,
};

/// Text of `len` bytes for turn `id`, made of ordinary words.
fn text(id: u64, len: usize) -> String {
    const WORDS: [&str; 12] = [
        "the", "session", "answer", "model", "keeps", "every", "turn", "on", "disk", "before",
        "replying", "again",
    ];
    let mut out = format!("turn {id}:");
    let mut n = id as usize;
    while out.len() < len {
        out.push(' ');
        out.push_str(WORDS[n % WORDS.len()]);
        n = n.wrapping_mul(31).wrapping_add(7);
    }
    out.truncate(len);
    out
}

/// Appends node `id` (under node `id - 1`) and the move that makes it the head to
/// `record`; returns them for one [`Change`].
pub fn next_turn(record: &mut SessionRecord, role: Role, text: String) -> (NodeRecord, MoveRecord) {
    let id = record.nodes + 1;
    record.nodes = id;
    record.moves = id;
    record.head = id;
    let node = NodeRecord {
        id,
        parent: id - 1,
        role,
        parts: vec![Part::text(text)],
        created_at_ms: 1,
        model: None,
    };
    let mv = MoveRecord {
        seq: id,
        kind: if role == Role::User {
            MoveKind::Prompt
        } else {
            MoveKind::Answer
        },
        from: id - 1,
        to: id,
        at_ms: 1,
        prev_redoable: None,
        redoes: None,
    };
    (node, mv)
}

/// Writes a linear session of `turns` nodes (prompt, answer, prompt, ...) into `store`
/// without syncing; returns its id and the bytes of text it holds.
pub fn session(store: &Store, turns: u64, sizes: Sizes) -> (Uuid, u64) {
    let mut record = SessionRecord::new(Uuid::new_v4(), 1);
    let mut content = 0;
    for id in 1..=turns {
        let (role, len) = if id % 2 == 1 {
            (Role::User, sizes.prompt)
        } else {
            (Role::Model, sizes.answer)
        };
        let text = text(id, len);
        content += text.len() as u64;
        let (node, mv) = next_turn(&mut record, role, text);
        store
            .apply(&Change {
                session: &record,
                node: Some(&node),
                mv: Some(&mv),
                recorded: None,
                fence: None,
            })
            .now_or_never()
            .expect("the embedded store applies at once")
            .unwrap();
    }
    (record.id, content)
}

/// Commits one prompt of ordinary length to `record`'s session, durably, as a send's
/// prompt is committed.
pub async fn commit_one(store: &Store, record: &mut SessionRecord) {
    let text = "a prompt of ordinary length, about one line".to_string();
    let (node, mv) = next_turn(record, Role::User, text);
    let change = Change {
        session: record,
        node: Some(&node),
        mv: Some(&mv),
        recorded: None,
        fence: None,
    };
    store.commit(&change).await.unwrap();
}

/// One session of `turns` short turns in the store at `data_dir`, synced and closed.
pub async fn seed(data_dir: &Path, turns: u64) -> Uuid {
    let store = Store::open(data_dir).unwrap();
    let (id, _) = session(&store, turns, SHORT);
    store.sync().await.unwrap();
    store.close().unwrap();
    id
}
