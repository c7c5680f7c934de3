//! Sessions: the tree (pure), what is stored, the actor that owns every change, and the
//! read-side views.

pub mod actor;
pub mod answer;
pub mod calls;
pub mod current;
pub mod integrity;
pub mod record;
pub mod registry;
pub mod tree;
pub mod validate;
pub mod views;

pub use integrity::build_tree;
