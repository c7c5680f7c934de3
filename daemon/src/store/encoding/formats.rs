//! The record formats: each value is one format-version byte, then bincode (see
//! `codec.rs`). Older versions are read and converted (`legacy.rs`), and written in the
//! current format the next time they change.

use super::{codec, legacy};
use crate::model::{MoveRecord, NodeRecord, SessionRecord};
use crate::store::StoreError;

/// Format of session records: 2 added the failure count and suspension, 3 tools and
/// recovery, 4 the session's model, fallback chain and system instruction, 5 the title's
/// source, archive and trash times, and the usage per model. Older ones are migrated when
/// read.
pub(in crate::store) const SESSION_FORMAT: u8 = 5;
/// Format of nodes: 2 added the provider that answered, 3 cached tokens to the usage.
pub(in crate::store) const NODE_FORMAT: u8 = 3;
/// Format of moves: 2 added the recovery move kinds (a format-1 move reads unchanged).
pub(in crate::store) const MOVE_FORMAT: u8 = 2;

pub(in crate::store) fn decode_session(bytes: &[u8]) -> Result<SessionRecord, StoreError> {
    const WHAT: &str = "session record";
    match codec::split(bytes, WHAT)? {
        (SESSION_FORMAT, body) => codec::body(body, WHAT),
        (4, body) => Ok(codec::body::<legacy::SessionRecordV4>(body, WHAT)?.into()),
        (3, body) => {
            let v3 = codec::body::<legacy::SessionRecordV3>(body, WHAT)?;
            Ok(legacy::SessionRecordV4::from(v3).into())
        }
        (2, body) => {
            let v3: legacy::SessionRecordV3 =
                codec::body::<legacy::SessionRecordV2>(body, WHAT)?.into();
            Ok(legacy::SessionRecordV4::from(v3).into())
        }
        (1, body) => {
            let v2: legacy::SessionRecordV2 =
                codec::body::<legacy::SessionRecordV1>(body, WHAT)?.into();
            let v3: legacy::SessionRecordV3 = v2.into();
            Ok(legacy::SessionRecordV4::from(v3).into())
        }
        (found, _) => Err(codec::unknown(WHAT, found, SESSION_FORMAT)),
    }
}

pub(in crate::store) fn decode_node(bytes: &[u8]) -> Result<NodeRecord, StoreError> {
    const WHAT: &str = "node";
    match codec::split(bytes, WHAT)? {
        (NODE_FORMAT, body) => codec::body(body, WHAT),
        (2, body) => Ok(codec::body::<legacy::NodeRecordV2>(body, WHAT)?.into()),
        (1, body) => {
            let v2: legacy::NodeRecordV2 = codec::body::<legacy::NodeRecordV1>(body, WHAT)?.into();
            Ok(v2.into())
        }
        (found, _) => Err(codec::unknown(WHAT, found, NODE_FORMAT)),
    }
}

pub(in crate::store) fn decode_move(bytes: &[u8]) -> Result<MoveRecord, StoreError> {
    const WHAT: &str = "move";
    match codec::split(bytes, WHAT)? {
        (MOVE_FORMAT | 1, body) => codec::body(body, WHAT),
        (found, _) => Err(codec::unknown(WHAT, found, MOVE_FORMAT)),
    }
}
