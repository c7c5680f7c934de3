//! `omnictl usage`: answers' tokens summed per session, model or day. A session's record
//! totals answer a question about all time; a question from a time on, by day, or about a
//! session whose record has no totals yet reads the session's nodes. Sessions in the
//! trash are left out; archived ones count.

use uuid::Uuid;

use crate::model::{ModelUsage, NodeRecord, SessionRecord};
use crate::store::{Store, StoreError};

/// What to sum.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Only answers stored from this time on (ms since the epoch).
    pub since_ms: Option<u64>,
    /// Only answers stored before this time.
    pub until_ms: Option<u64>,
    /// One row per session, model or day.
    pub by: omni_proto::UsageGrouping,
    /// Only this session.
    pub session: Option<Uuid>,
}

/// One row: what it stands for and its tokens per model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The session's id, the model or the local day.
    pub key: String,
    /// The session's title, for rows of sessions.
    pub label: String,
    /// Its tokens, per model.
    pub usage: Vec<ModelUsage>,
}

/// Sums the stored answers `query` asks about. Rows come in no particular order.
pub async fn report(store: &Store, query: &Query) -> Result<Vec<Row>, StoreError> {
    let records = match (query.session, query.since_ms) {
        (Some(id), _) => store.session(&id).await?.into_iter().collect(),
        (None, Some(since)) => active_since(store, since).await?,
        (None, None) => store
            .sessions()
            .await?
            .into_iter()
            .filter_map(|stored| stored.record.ok())
            .collect::<Vec<_>>(),
    };
    let mut rows = Rows::default();
    for record in records {
        if record.deleted_at_ms.is_some() && query.session.is_none() {
            continue;
        }
        if query
            .since_ms
            .is_some_and(|since| record.updated_at_ms < since)
        {
            continue;
        }
        if needs_nodes(store, &record, query).await? {
            let mut nodes = store.nodes(&record.id).await?;
            nodes.truncate(record.nodes as usize);
            rows.count_nodes(&record, &nodes, query);
        } else {
            rows.count_record(&record, query);
        }
    }
    Ok(rows.0)
}

/// The records of the sessions last active at or after `since`: a walk of the activity
/// index from the newest end that stops at the first older entry, not a read of every
/// record. The first `status` after a start asks for the day's usage before the start:
/// with 100,000 sessions, reading them all took about half a second. An entry a crash left
/// behind names an older time than its record's (whose own entry is walked too), and a
/// record that cannot be decoded is left out, as a read of every record leaves it out.
async fn active_since(store: &Store, since: u64) -> Result<Vec<SessionRecord>, StoreError> {
    let mut records = Vec::new();
    let mut entries = store.by_activity(None);
    while let Some((at, id)) = entries.next().await? {
        if at < since {
            break;
        }
        match store.session(&id).await {
            Ok(Some(record)) if record.updated_at_ms == at => records.push(record),
            Ok(_) | Err(StoreError::Corrupt(_) | StoreError::UnknownFormat { .. }) => {}
            Err(error) => return Err(error),
        }
    }
    Ok(records)
}

/// Whether the record's totals cannot answer: days, a time range the session's life does
/// not lie within, or a record from before totals were kept. (Reading every node of a
/// session the range holds whole, or whose answers named no model, made the first
/// `status` after a start read the whole store when it was all written that day.)
async fn needs_nodes(
    store: &Store,
    record: &SessionRecord,
    query: &Query,
) -> Result<bool, StoreError> {
    let within = query
        .since_ms
        .is_none_or(|since| record.created_at_ms >= since)
        && query
            .until_ms
            .is_none_or(|until| record.updated_at_ms < until);
    if !within || query.by == omni_proto::UsageGrouping::Day {
        return Ok(true);
    }
    if record.usage.is_empty() && record.nodes > 0 {
        return store.session_predates_usage(&record.id).await;
    }
    Ok(false)
}

#[derive(Default)]
struct Rows(Vec<Row>);

impl Rows {
    fn row(&mut self, key: String, label: &str) -> &mut Vec<ModelUsage> {
        let index = match self.0.iter().position(|row| row.key == key) {
            Some(index) => index,
            None => {
                self.0.push(Row {
                    key,
                    label: label.to_string(),
                    usage: Vec::new(),
                });
                self.0.len() - 1
            }
        };
        &mut self.0[index].usage
    }

    fn count_record(&mut self, record: &SessionRecord, query: &Query) {
        for usage in &record.usage {
            let key = key(record, &usage.model, 0, query);
            ModelUsage::add(self.row(key, label(record, query)), usage);
        }
    }

    fn count_nodes(&mut self, record: &SessionRecord, nodes: &[NodeRecord], query: &Query) {
        for node in nodes {
            let Some(info) = &node.model else { continue };
            let at = node.created_at_ms;
            if query.since_ms.is_some_and(|since| at < since)
                || query.until_ms.is_some_and(|until| at >= until)
            {
                continue;
            }
            let model = format!("{}/{}", info.provider, info.model);
            let key = key(record, &model, at, query);
            ModelUsage::count(self.row(key, label(record, query)), info);
        }
    }
}

/// A row's label: the session's title for rows of sessions.
fn label<'a>(record: &'a SessionRecord, query: &Query) -> &'a str {
    match query.by {
        omni_proto::UsageGrouping::Session => &record.title,
        _ => "",
    }
}

/// The row an answer counts in.
fn key(record: &SessionRecord, model: &str, at_ms: u64, query: &Query) -> String {
    match query.by {
        omni_proto::UsageGrouping::Session => record.id.to_string(),
        omni_proto::UsageGrouping::Model => model.to_string(),
        omni_proto::UsageGrouping::Day => omni_proto::local_day(at_ms),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::store::Change;

    /// A session created at `created_ms`, last active at `active_ms`, whose answers used
    /// `input` tokens of model `m`.
    async fn session(store: &Store, created_ms: u64, active_ms: u64, input: u64) {
        let mut record = SessionRecord::new(Uuid::new_v4(), created_ms);
        record.updated_at_ms = active_ms;
        record.usage = vec![ModelUsage {
            model: "p/m".into(),
            answers: 1,
            input,
            ..ModelUsage::default()
        }];
        let change = Change::record_only(&record);
        store.commit_new(&change).await.unwrap();
    }

    fn input_of(rows: &[Row]) -> u64 {
        rows.iter()
            .flat_map(|row| &row.usage)
            .map(|u| u.input)
            .sum()
    }

    /// A question from a time on reads the sessions active since then, by the activity
    /// index, and every one of them; all time reads them all.
    #[tokio::test]
    async fn sessions_active_since_a_time_are_summed_and_older_ones_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        session(&store, 1_000, 2_000, 10).await;
        for n in 0..3 {
            session(&store, 5_000 + n, 6_000 + n, 20).await;
        }
        let since = |since_ms| Query {
            since_ms,
            by: omni_proto::UsageGrouping::Model,
            ..Query::default()
        };
        assert_eq!(
            input_of(&report(&store, &since(Some(4_000))).await.unwrap()),
            60
        );
        // Begun before 5,001, the first of them is read node by node: it has none.
        assert_eq!(
            input_of(&report(&store, &since(Some(5_001))).await.unwrap()),
            40
        );
        assert_eq!(input_of(&report(&store, &since(None)).await.unwrap()), 70);
    }
}
