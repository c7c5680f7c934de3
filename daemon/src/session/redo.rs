//! What `redo` would take back: the undo-type move on top of the session's redo stack, as
//! long as the head is still where that move left it. One rule for the actor that redoes
//! and for the views that say whether Redo can do anything.

use crate::model::{MoveRecord, SessionRecord};
use crate::store::{Store, StoreError};

/// The move `redo` takes back now, or `None` when there is nothing to redo (no undo or
/// back since the last prompt or checkout, or the head moved on since).
pub async fn redoable(
    store: &Store,
    record: &SessionRecord,
) -> Result<Option<MoveRecord>, StoreError> {
    let Some(seq) = record.redo_top else {
        return Ok(None);
    };
    Ok(store
        .move_record(&record.id, seq)
        .await?
        .filter(|undone| undone.to == record.head && undone.kind.is_undo_type()))
}
