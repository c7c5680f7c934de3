//! Sessions: the tree (pure), what is stored, the actor that owns every change, and the
//! read-side views.

pub mod actor;
pub mod answer;
pub mod calls;
pub mod error;
pub mod gauge;
pub mod integrity;
pub mod measured;
pub mod outcome;
pub mod pieces;
mod recorded;
pub mod redo;
pub mod registry;
pub mod tree;
pub mod validate;

pub use error::SessionError;
pub use integrity::{build_tree, indexed, places};
