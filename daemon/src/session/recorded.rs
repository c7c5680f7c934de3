//! A new conversation recorded from elsewhere (through the proxy) is a new session written
//! whole: its record, nodes, moves, origin and chain entries in one ordered change, made
//! durable by one shared sync. No actor is started for it: nobody can have loaded a
//! session before its record exists, and the record is written last.

use uuid::Uuid;

use super::SessionError;
use super::actor::{RecordedTurn, recorded_whole};
use super::registry::Registry;
use super::tree::NodeId;
use crate::model::SessionRecord;
use crate::store::Import;
use crate::time::now_ms;

/// A new recorded session's id: time-ordered (UUID version 7), so each conversation a busy
/// proxy records lands at the end of the store's trees keyed by session, where the pages
/// are already in the cache, instead of on a random page read back from disk. Under proxy
/// load this made recording a fifth to a third faster. Sessions made by hand keep random
/// ids, whose first few characters tell them apart; recorded ones made close together
/// share their first characters, and a prefix needs more of them.
fn recorded_id() -> Uuid {
    Uuid::now_v7()
}

impl Registry {
    /// Records `turns` as a new session (`origin` says where they come from, such as
    /// `gemini proxy (gemini-cli/1.0)`), asking `model` (`PROVIDER/MODEL`, the model the
    /// client asked) if a user continues it; it does not become the current session.
    /// Returns the session and its nodes once they are durable.
    pub async fn record_new(
        &self,
        origin: &str,
        model: Option<String>,
        turns: Vec<RecordedTurn>,
    ) -> Result<(Uuid, Vec<NodeId>), SessionError> {
        let mut record = SessionRecord::new(recorded_id(), now_ms());
        record.model = model;
        let whole = recorded_whole(record, turns);
        let import = Import {
            session: &whole.record,
            nodes: &whole.nodes,
            moves: &whole.moves,
            origin: Some(origin),
            hash: None,
            chains: &whole.chains,
        };
        let services = self.services();
        services.store.import(&import).await?;
        let now = now_ms();
        for info in whole.nodes.iter().filter_map(|node| node.model.as_ref()) {
            services.usage_today.count(info, now);
        }
        let nodes = whole.nodes.iter().map(|node| node.id).collect();
        Ok((whole.record.id, nodes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_sessions_are_numbered_in_the_order_they_are_made() {
        let ids: Vec<Uuid> = (0..1000).map(|_| recorded_id()).collect();
        assert!(ids.iter().all(|id| id.get_version_num() == 7));
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    }
}
