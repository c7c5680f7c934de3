//! Finds sessions by reference and starts each session's actor on first use.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

use super::SessionError;
use super::actor::{ActorHandle, Loaded};
use super::integrity::{Damaged, build_tree, check_record, indexed};
use crate::model::{Role, SessionRecord};
use crate::services::Services;
use crate::store::{Change, StoreError};
use crate::time::now_ms;

/// All sessions' actors, started lazily, and the sessions found damaged.
pub struct Registry {
    ctx: Arc<Services>,
    actors: Arc<Loaded>,
    damaged: Damaged,
}

/// Whether a store error means the session's own records are bad (rather than the store
/// failing as a whole).
pub fn is_bad_record(error: &StoreError) -> bool {
    matches!(
        error,
        StoreError::Corrupt(_) | StoreError::UnknownFormat { .. }
    )
}

/// What a new session starts with (each checked by the caller).
#[derive(Debug, Default)]
pub struct NewSession {
    /// Function declarations, a JSON array.
    pub tools_json: Option<String>,
    /// Its model, `PROVIDER/MODEL`; `None`: the daemon's.
    pub model: Option<String>,
    /// Its fallback chain; empty: the daemon's.
    pub fallback: Vec<String>,
    /// Its system instruction.
    pub system: Option<String>,
}

impl Registry {
    /// A registry over the shared session context.
    pub fn new(ctx: Arc<Services>) -> Self {
        Self {
            ctx,
            actors: Arc::new(Mutex::new(HashMap::new())),
            damaged: Damaged::default(),
        }
    }

    /// The sessions found damaged so far.
    pub fn damaged(&self) -> &Damaged {
        &self.damaged
    }

    /// What every session shares (the store, the day's usage).
    pub(super) fn services(&self) -> &Services {
        &self.ctx
    }

    /// The session a client's request means when it names none, at start-up: the most
    /// recently updated one a client of omnid's own made whose record agrees with the store.
    /// Goes through the sessions newest first by the activity index and reads only the
    /// candidates it tries (a few lookups each): reading every record first was a third of
    /// a second before the first answer on a store of 100,000 sessions. A record it tries
    /// that cannot be read is marked damaged, as the check of every session after the start
    /// marks the others.
    pub async fn current_at_start(&self) -> Result<Option<Uuid>, StoreError> {
        let store = &self.ctx.store;
        let mut entries = store.by_activity(None);
        while let Some((at, id)) = entries.next().await? {
            let record = match store.session(&id).await {
                Ok(Some(record)) => record,
                Ok(None) => continue,
                Err(error @ (StoreError::Corrupt(_) | StoreError::UnknownFormat { .. })) => {
                    let problem = format!("its record cannot be read ({error})");
                    self.damaged.mark(id, &problem);
                    continue;
                }
                Err(error) => return Err(error),
            };
            // An entry a crash left behind names an older time than the record's.
            let current = record.updated_at_ms == at;
            // A recorded conversation is not a client's session: never the current one.
            if current && store.origin(&id).await.is_none() && self.agrees(&record).await? {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// Checks every session's record against what is stored (a few lookups each) and
    /// marks those that disagree: run in the background once the daemon serves, so a big
    /// store does not delay the start; loading a session checks it first anyway. Stops
    /// early when the daemon shuts down.
    pub async fn check_all(&self) -> Result<(), StoreError> {
        for record in self.readable_records().await? {
            if self.ctx.shutdown.is_cancelled() {
                break;
            }
            self.agrees(&record).await?;
        }
        Ok(())
    }

    /// Every session record that can be read; those that cannot are marked damaged.
    async fn readable_records(&self) -> Result<Vec<SessionRecord>, StoreError> {
        let mut records = Vec::new();
        for stored in self.ctx.store.sessions().await? {
            match stored.record {
                Ok(record) => records.push(record),
                Err(error) => self
                    .damaged
                    .mark(stored.id, &format!("its record cannot be read ({error})")),
            }
        }
        Ok(records)
    }

    /// Whether a session's record agrees with what is stored; one that does not is marked
    /// damaged.
    async fn agrees(&self, record: &SessionRecord) -> Result<bool, StoreError> {
        if self.damaged.get(&record.id).is_some() {
            return Ok(false);
        }
        match check_record(&self.ctx.store, record).await? {
            Some(problem) => {
                self.damaged.mark(record.id, &problem);
                Ok(false)
            }
            None => Ok(true),
        }
    }

    /// Creates an empty session (with function declarations, if given), durably, and makes
    /// it the current one.
    pub async fn create(&self, options: NewSession) -> Result<SessionRecord, SessionError> {
        let mut record = SessionRecord::new(Uuid::new_v4(), now_ms());
        record.tools_json = options.tools_json;
        record.model = options.model;
        record.fallback = options.fallback;
        record.system = options.system;
        self.store_new(&record).await?;
        self.ctx.current.set(record.id);
        Ok(record)
    }

    async fn store_new(&self, record: &SessionRecord) -> Result<(), SessionError> {
        let change = Change::record_only(record);
        self.ctx
            .store
            .commit_new(&change)
            .await
            .map_err(SessionError::from)
    }

    /// Resolves a reference to a session id: `None` for the current session, else a full
    /// id, a unique prefix of one, or (when no id begins so) a unique prefix of a title,
    /// regardless of case; a title equal to the text wins over longer ones it begins.
    pub async fn resolve(&self, session: Option<&str>) -> Result<Uuid, SessionError> {
        match session {
            None => self.ctx.current.get().ok_or_else(|| {
                SessionError::not_found("there is no session yet; create one with `omnictl new`")
            }),
            Some(text) => self.resolve_id(text.trim()).await,
        }
    }

    async fn resolve_id(&self, text: &str) -> Result<Uuid, SessionError> {
        let unknown = || {
            SessionError::not_found(format!(
                "no session matches '{text}'; `omnictl sessions` lists them"
            ))
        };
        if text.is_empty() {
            return Err(SessionError::invalid("the session id is empty"));
        }
        if let Ok(id) = Uuid::parse_str(text) {
            return match self.ctx.store.session(&id).await {
                Ok(Some(_)) => Ok(id),
                Ok(None) => Err(unknown()),
                Err(error) if is_bad_record(&error) => Ok(id),
                Err(error) => Err(SessionError::from(error)),
            };
        }
        let prefix = text.to_ascii_lowercase();
        let stored = self
            .ctx
            .store
            .sessions()
            .await
            .map_err(SessionError::from)?;
        let by_id: Vec<Uuid> = stored
            .iter()
            .map(|stored| stored.id)
            .filter(|id| id.to_string().starts_with(&prefix))
            .collect();
        match by_id.as_slice() {
            [id] => return Ok(*id),
            [] => {}
            many => {
                return Err(SessionError::invalid(format!(
                    "'{text}' matches {} sessions; give more of the id",
                    many.len()
                )));
            }
        }
        let titled: Vec<(Uuid, String)> = stored
            .into_iter()
            .filter_map(|stored| {
                let record = stored.record.ok()?;
                let title = record.title.to_lowercase();
                (title.starts_with(&text.to_lowercase())).then_some((record.id, title))
            })
            .collect();
        let exact: Vec<&(Uuid, String)> = titled
            .iter()
            .filter(|(_, title)| *title == text.to_lowercase())
            .collect();
        match (titled.as_slice(), exact.as_slice()) {
            ([(id, _)], _) | (_, [(id, _)]) => Ok(*id),
            ([], _) => Err(unknown()),
            (many, _) => Err(SessionError::invalid(format!(
                "'{text}' begins the titles of {} sessions; give more of the title, or the id",
                many.len()
            ))),
        }
    }

    /// The actor of a session, started (and its tree loaded) on first use. A damaged
    /// session has none: it takes no changes.
    pub async fn actor(&self, id: Uuid) -> Result<ActorHandle, SessionError> {
        if let Some(reason) = self.damaged.get(&id) {
            return Err(SessionError::Damaged {
                session: id,
                reason: reason.clone(),
            });
        }
        let mut followed = None;
        if let Some(handle) = self.loaded(&id) {
            if self.still_current(&handle, &id).await {
                return Ok(handle);
            }
            // Whoever follows it goes on following its successor.
            followed = Some(handle.watchers());
        }
        // Read outside any lock: loading one session never holds up another.
        let store = &self.ctx.store;
        let bad = |error: StoreError| {
            if is_bad_record(&error) {
                let reason = format!("a record cannot be read ({error})");
                self.damaged.mark(id, &reason);
                SessionError::Damaged {
                    session: id,
                    reason: reason.clone(),
                }
            } else {
                SessionError::from(error)
            }
        };
        let record = store
            .session(&id)
            .await
            .map_err(&bad)?
            .ok_or_else(|| SessionError::not_found(format!("session {id} does not exist")))?;
        if !self.agrees(&record).await.map_err(&bad)? {
            return Err(SessionError::Damaged {
                session: id,
                reason: self.damaged.get(&id).unwrap_or_default(),
            });
        }
        let links = store.links(&id, record.nodes).await.map_err(&bad)?;
        let mut record = record;
        if record.usage.is_empty()
            && links.iter().any(|link| link.role == Role::Model)
            && store.session_predates_usage(&id).await.map_err(&bad)?
        {
            // A record from before token totals were kept: its answers are counted once,
            // and the next commit keeps the totals. (A newer record whose answers named no
            // model has nothing to count: reading its every node at each load made the
            // first request on a 100,000-turn session take 300 ms.)
            let mut nodes = store.nodes(&id).await.map_err(&bad)?;
            nodes.truncate(record.nodes as usize);
            record.usage = crate::usage::of_session(&record, &nodes);
        }
        let places = indexed(store, &id, &links).await.map_err(&bad)?;
        let tree = build_tree(&record, places.into_iter()).map_err(|reason| {
            self.damaged.mark(id, &reason);
            SessionError::Damaged {
                session: id,
                reason: reason.clone(),
            }
        })?;
        let client_made = store.origin(&id).await.is_none();
        let mut actors = self.actors.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(handle) = actors.get(&id).filter(|h| !h.is_closed()) {
            // Loaded meanwhile by a concurrent request: that actor is the one.
            return Ok(handle.clone());
        }
        let loaded = Arc::downgrade(&self.actors);
        let handle = ActorHandle::spawn(
            self.ctx.clone(),
            record,
            tree,
            loaded,
            client_made,
            followed,
        );
        actors.insert(id, handle.clone());
        Ok(handle)
    }

    /// Ends a session's actor, if loaded, before it is purged (refused while it answers),
    /// and forgets that it was found damaged.
    pub async fn unload_for_purge(&self, id: &Uuid) -> Result<(), SessionError> {
        if let Some(handle) = self.loaded(id) {
            handle.close().await?;
            let mut actors = self.actors.lock().unwrap_or_else(|p| p.into_inner());
            actors.remove(id);
        }
        self.damaged.forget(id);
        self.ctx.current.forget(id);
        Ok(())
    }

    /// Whether a loaded actor holds the session as the store has it. On a shared store
    /// another omnid may have changed it since: then the actor ends (unless it is busy:
    /// its own commit is refused if it is behind) and the session is read again, so a
    /// person switching machines goes on at once.
    async fn still_current(&self, handle: &ActorHandle, id: &Uuid) -> bool {
        if !self.ctx.store.is_shared() {
            return true;
        }
        let Ok(Some(stored)) = self.ctx.store.session(id).await else {
            return true;
        };
        if handle.holds(&stored) || handle.close().await.is_err() {
            return true;
        }
        tracing::info!(session = %id, "another omnid changed the session; it is read again");
        let mut actors = self.actors.lock().unwrap_or_else(|p| p.into_inner());
        if actors.get(id).is_some_and(ActorHandle::is_closed) {
            actors.remove(id);
        }
        false
    }

    /// Tells whoever follows a session here what another instance's turn did, an event as
    /// it published it (nobody follows a session that is not loaded: it is not read).
    pub fn relay(&self, id: &Uuid, body: &[u8]) {
        if let Some(handle) = self.loaded(id) {
            handle.relay(body);
        }
    }

    /// The actor of a session that is loaded now, if any.
    fn loaded(&self, id: &Uuid) -> Option<ActorHandle> {
        let actors = self.actors.lock().unwrap_or_else(|p| p.into_inner());
        actors.get(id).filter(|handle| !handle.is_closed()).cloned()
    }

    /// How many sessions are loaded now.
    pub fn loaded_count(&self) -> usize {
        let actors = self.actors.lock().unwrap_or_else(|p| p.into_inner());
        actors.values().filter(|handle| !handle.is_closed()).count()
    }
}
