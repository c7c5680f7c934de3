//! Anthropic's Messages API: its stream read as neutral updates (`stream.rs`), shared by
//! the proxy's Anthropic endpoint and by sessions asking Claude models.

pub mod stream;

pub use stream::Assembler;
