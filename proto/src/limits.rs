//! The protocol's version and the largest frame it carries.

/// Version of this wire protocol. A client and a daemon talk only if theirs are equal.
pub const PROTOCOL_VERSION: u32 = 14;

/// Largest payload a frame may carry (16 MiB). Checked before anything is allocated.
pub const MAX_FRAME_LEN: usize = 16 * 1024 * 1024;
