//! Writing straight into a stopped daemon's store, as a bug, a failing disk or an older
//! version could have left it.

use std::path::Path;

use omnid::model::{MoveRecord, NodeRecord, SessionRecord};
use omnid::store::{Change, Store};

/// What one stored change holds: the session's record after it, and a node and a move.
pub type Stored = (SessionRecord, Option<NodeRecord>, Option<MoveRecord>);

/// Opens the store in `data_dir` (the daemon must be stopped), hands `session`'s record to
/// `changes`, and commits every change it returns, in order.
pub fn write_into_store(
    data_dir: &Path,
    session: &str,
    changes: impl FnOnce(SessionRecord) -> Vec<Stored>,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let store = Store::open(data_dir).expect("the stopped daemon's store");
        let id = uuid::Uuid::parse_str(session).expect("a session id");
        let record = store
            .session(&id)
            .expect("a readable record")
            .expect("the session exists");
        for (record, node, mv) in changes(record) {
            let change = Change {
                session: &record,
                node: node.as_ref(),
                mv: mv.as_ref(),
            };
            store.commit(&change).await.expect("the change is stored");
        }
    });
}
