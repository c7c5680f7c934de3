//! The context a session holds in memory, ready to send: for each node on the path to the
//! turn being answered, its rendering for the session's provider and its shape for
//! preflight validation. The first send after loading reads and renders the path once;
//! later sends read and render only what is new on the path (the turn itself, the answer
//! before it), so a send costs the same at turn 10 and at turn 10,000 but for assembling
//! the body.
//!
//! Memory: about the size of the request body (one copy of the context in its wire
//! format) plus a few dozen bytes a node, for a loaded session that has sent; at most
//! [`HELD_MAX_BYTES`], beyond which the context is rendered from the store for each send
//! instead of kept. An idle session unloads and holds nothing.

use std::sync::Arc;

use uuid::Uuid;

use crate::model::NodeId;
use crate::provider::{Fragment, Kind, Target, fragment};
use crate::session::validate::{Shape, Violation, validate_after};
use crate::store::{Store, StoreError};

/// The most a session keeps of its rendered context between sends.
pub const HELD_MAX_BYTES: usize = 32 * 1024 * 1024;

/// What a session holds of its context.
#[derive(Default)]
pub(super) struct Held {
    /// Whose rendering the fragments are: a provider's name and kind.
    rendered_for: Option<(String, Kind)>,
    /// The nodes held, from the start of the conversation.
    ids: Vec<NodeId>,
    /// Their renderings, shared with the answer in flight.
    fragments: Arc<Vec<Fragment>>,
    /// Their shapes.
    shapes: Vec<Shape>,
    /// How many of the shapes are (a start of) a context that passed preflight
    /// validation: the next check starts near their end.
    checked: usize,
    /// Bytes of rendering held.
    bytes: usize,
}

impl Held {
    /// Brings the held context to `path` rendered for `target`: keeps the longest start it
    /// shares with what is held, reads and renders the rest from the store.
    pub async fn follow(
        &mut self,
        store: &Store,
        session: &Uuid,
        path: &[NodeId],
        target: &Target<'_>,
    ) -> Result<(), StoreError> {
        let same_target = self
            .rendered_for
            .as_ref()
            .is_some_and(|(provider, kind)| provider == target.provider && *kind == target.kind);
        if !same_target {
            *self = Held {
                rendered_for: Some((target.provider.to_string(), target.kind)),
                ..Held::default()
            };
        }
        let shared = self
            .ids
            .iter()
            .zip(path)
            .take_while(|(held, wanted)| held == wanted)
            .count();
        let fragments = Arc::make_mut(&mut self.fragments);
        self.bytes -= fragments[shared..]
            .iter()
            .map(|f| f.json.len())
            .sum::<usize>();
        self.ids.truncate(shared);
        fragments.truncate(shared);
        self.shapes.truncate(shared);
        self.checked = self.checked.min(shared);
        for &id in &path[shared..] {
            let node = store.node(session, id).await?;
            let rendered = fragment(target, &node, fragments.last());
            self.bytes += rendered.json.len();
            fragments.push(rendered);
            self.shapes.push(Shape::of(&node));
            self.ids.push(id);
        }
        Ok(())
    }

    /// The renderings held, in path order.
    pub fn fragments(&self) -> Arc<Vec<Fragment>> {
        self.fragments.clone()
    }

    /// Checks the context held against the API's rules (preflight validation), reading
    /// again only what changed at its end since the last check that passed.
    pub fn validate(&mut self) -> Result<(), Violation> {
        validate_after(&self.shapes, self.checked)?;
        self.checked = self.shapes.len();
        Ok(())
    }

    /// Lets go of a context over [`HELD_MAX_BYTES`]: the next send renders it again.
    pub fn trim(&mut self) {
        if self.bytes > HELD_MAX_BYTES {
            *self = Held::default();
        }
    }
}
