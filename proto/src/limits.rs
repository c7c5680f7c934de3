//! The protocol's version and the largest frame it carries.

/// Version of this wire protocol. A client and a daemon talk only if theirs are equal.
pub const PROTOCOL_VERSION: u32 = 14;

/// Largest payload a frame may carry (16 MiB). Checked before anything is allocated.
pub const MAX_FRAME_LEN: usize = 16 * 1024 * 1024;

/// Largest reply carried in pieces ([`crate::Event::ReplyPiece`]), when it does not fit in
/// one frame (the history of a session holding a huge prompt).
pub const MAX_PIECED_REPLY_LEN: usize = 1024 * 1024 * 1024;

/// The size of each piece of a reply carried in pieces.
pub const REPLY_PIECE_LEN: usize = 8 * 1024 * 1024;
