//! How the store's records are written, whichever backend keeps them: one format-version
//! byte, then bincode-2 of a type from `model/` (`codec.rs`); each record type's current
//! format and how older ones are read (`formats.rs`, `legacy.rs`). `golden/` holds one
//! sample of every format, old ones included (`golden.rs` checks each still reads).

pub mod codec;
pub mod formats;
pub mod legacy;

#[cfg(test)]
pub(in crate::store) mod golden;
