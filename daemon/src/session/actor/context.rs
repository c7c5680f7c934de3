//! What a send's request is made of, whichever model of its chain it goes to: the path,
//! the fragments held for the session's own provider, and how to render the context for
//! another. Shared by the attempts (`turn/attempts.rs`) and the walk along the chain
//! (`turn/fallback.rs`), which both import it from here.

use std::sync::Arc;

use uuid::Uuid;

use crate::model::{NodeId, NodeRecord};
use crate::provider::{Extras, Fragment, Kind, RequestBody, assemble, body};
use crate::services::{Endpoint, Live};
use crate::store::{Store, StoreError};

/// What a request is made of, whichever model it goes to.
pub(super) struct Context {
    pub session: Uuid,
    /// A node before the stored ones that is not stored (the summary so far, when a
    /// compaction is summarised in pieces).
    pub lead: Option<NodeRecord>,
    /// The stored nodes of the context, in order.
    pub path: Vec<NodeId>,
    /// A node after them that is not stored (the request for a compaction's summary).
    pub extra: Option<NodeRecord>,
    /// The path rendered for one provider (the session's own), and whose rendering it is.
    pub fragments: Arc<Vec<Fragment>>,
    pub rendered_for: (String, Kind),
    /// The session's function declarations.
    pub tools_json: Option<String>,
    /// The session's system instruction.
    pub system: Option<String>,
    /// Where the nodes are, for a provider that renders them differently.
    pub store: Arc<Store>,
}

impl Context {
    /// The request body for `endpoint`: assembled from the fragments held when they are
    /// its provider's, else rendered from the stored nodes.
    pub async fn body_for(
        &self,
        endpoint: &Endpoint,
        live: &Live,
    ) -> Result<RequestBody, StoreError> {
        let target = endpoint.target();
        let extras = Extras {
            tools_json: self.tools_json.as_deref(),
            system: self.system.as_deref(),
            options: &live.config.provider.request,
        };
        let (provider, kind) = &self.rendered_for;
        if *provider == target.provider && *kind == target.kind {
            return Ok(assemble(&target, &self.fragments, extras));
        }
        let mut nodes: Vec<NodeRecord> = self.lead.iter().cloned().collect();
        for &id in &self.path {
            nodes.push(self.store.node(&self.session, id).await?);
        }
        nodes.extend(self.extra.clone());
        Ok(body(&target, &nodes, extras))
    }
}
