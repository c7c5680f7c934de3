//! Finds sessions by reference and starts each session's actor on first use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use omni_proto::{ErrorKind, ErrorReply, SessionRef};
use uuid::Uuid;

use super::actor::{ActorHandle, SessionContext};
use super::build_tree;
use super::record::SessionRecord;
use crate::errors::{reply, store_error};
use crate::store::Change;
use crate::time::now_ms;

/// All sessions' actors, started lazily.
pub struct Registry {
    ctx: Arc<SessionContext>,
    actors: Mutex<HashMap<Uuid, ActorHandle>>,
}

impl Registry {
    /// A registry over the shared session context.
    pub fn new(ctx: Arc<SessionContext>) -> Self {
        Self {
            ctx,
            actors: Mutex::new(HashMap::new()),
        }
    }

    /// The shared context (store, provider, lifecycle).
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// Creates an empty session (with function declarations, if given), durably, and makes
    /// it the current one.
    pub async fn create(&self, tools_json: Option<String>) -> Result<SessionRecord, ErrorReply> {
        let mut record = SessionRecord::new(Uuid::new_v4(), now_ms());
        record.tools_json = tools_json;
        let change = Change {
            session: &record,
            node: None,
            mv: None,
        };
        self.ctx.store.commit(&change).await.map_err(store_error)?;
        self.ctx.current.set(record.id);
        Ok(record)
    }

    /// Resolves a reference to a session id: the current session, a full id, or a unique
    /// prefix of one.
    pub fn resolve(&self, session: &SessionRef) -> Result<Uuid, ErrorReply> {
        match session {
            SessionRef::Current => self.ctx.current.get().ok_or_else(|| {
                reply(
                    ErrorKind::NotFound,
                    "there is no session yet; create one with `omnictl new`",
                )
            }),
            SessionRef::Id(text) => self.resolve_id(text.trim()),
        }
    }

    fn resolve_id(&self, text: &str) -> Result<Uuid, ErrorReply> {
        let unknown = || {
            reply(
                ErrorKind::NotFound,
                format!("no session matches '{text}'; `omnictl sessions` lists them"),
            )
        };
        if text.is_empty() {
            return Err(reply(ErrorKind::InvalidRequest, "the session id is empty"));
        }
        if let Ok(id) = Uuid::parse_str(text) {
            return match self.ctx.store.session(&id).map_err(store_error)? {
                Some(_) => Ok(id),
                None => Err(unknown()),
            };
        }
        let prefix = text.to_ascii_lowercase();
        let matches: Vec<Uuid> = self
            .ctx
            .store
            .sessions()
            .map_err(store_error)?
            .into_iter()
            .map(|record| record.id)
            .filter(|id| id.to_string().starts_with(&prefix))
            .collect();
        match matches.as_slice() {
            [id] => Ok(*id),
            [] => Err(unknown()),
            many => Err(reply(
                ErrorKind::InvalidRequest,
                format!(
                    "'{text}' matches {} sessions; give more of the id",
                    many.len()
                ),
            )),
        }
    }

    /// The actor of a session, started (and its tree loaded) on first use.
    pub fn actor(&self, id: Uuid) -> Result<ActorHandle, ErrorReply> {
        let mut actors = self
            .actors
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(handle) = actors.get(&id) {
            return Ok(handle.clone());
        }
        let store = &self.ctx.store;
        let record = store
            .session(&id)
            .map_err(store_error)?
            .ok_or_else(|| reply(ErrorKind::NotFound, format!("session {id} does not exist")))?;
        let nodes = store.nodes(&id).map_err(store_error)?;
        let tree = build_tree(&record, &nodes)?;
        let handle = ActorHandle::spawn(self.ctx.clone(), record, tree);
        actors.insert(id, handle.clone());
        Ok(handle)
    }
}
