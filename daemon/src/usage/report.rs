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
    let records = match query.session {
        Some(id) => store.session(&id).await?.into_iter().collect(),
        None => store
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
