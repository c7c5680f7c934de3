//! The contexts the views measured last (`status`, a session's line in a listing, its
//! tree), by session, so a view does not walk a session again to where it walked before. A
//! session whose answers report no usage (an import, or a store seeded without a model) is
//! measured by walking its path to the start: 1,000 node reads for a 1,000-turn import, at
//! every page of sessions that lists it and every `status` while it is the current one. A
//! context is a function of the tree above its node, which never changes, so what was
//! measured stays true; a head moved on is walked only to where it was measured.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use uuid::Uuid;

use super::gauge::{ContextSize, Gauge, gauge_of};
use crate::model::{NodeId, SessionRecord};
use crate::services::{Live, Services};

/// Sessions remembered at most; past it the memory starts again (a few dozen bytes each).
const KEPT: usize = 1024;

/// The last context measured for a view, by session.
#[derive(Default)]
pub struct Measured(Mutex<HashMap<Uuid, (NodeId, ContextSize)>>);

impl Measured {
    fn lock(&self) -> MutexGuard<'_, HashMap<Uuid, (NodeId, ContextSize)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How full the context at the session's head is (see [`gauge_of`]), walking no
    /// further up than where it was measured last.
    pub async fn at_head(&self, services: &Services, live: &Live, record: &SessionRecord) -> Gauge {
        let known = self.lock().get(&record.id).copied();
        let gauge = gauge_of(services, live, record, record.head, known).await;
        let mut kept = self.lock();
        if kept.len() >= KEPT && !kept.contains_key(&record.id) {
            kept.clear();
        }
        kept.insert(record.id, (record.head, gauge.size));
        gauge
    }
}
