//! What the daemon stores and reasons about: sessions, nodes, their parts, moves of the
//! head, and how an answer was produced. It imports nothing else from the crate, so every
//! layer can use it; the wire protocol's types are converted to and from these at the
//! server's edge only, and the store's golden-bytes tests pin how they are written.

mod part;
mod record;

pub use part::{ModelInfo, Part, PartContent, Role, Usage, visible_text};
pub use record::{
    ModelUsage, MoveKind, MoveRecord, NodeId, NodeRecord, ROOT, Recovery, SessionRecord,
    Suspension, ToolResults,
};
