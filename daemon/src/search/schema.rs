//! What the index holds: one document per node (its session, number, role, time and every
//! word of it: text, thoughts, function calls and results), and one marker per session
//! saying how many of its nodes are indexed. The version names this layout: an index of
//! another version is rebuilt.

use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::schema::{FAST, Field, INDEXED, STORED, STRING, Schema, TEXT, TantivyDocument, Value};
use tantivy::{Searcher, Term, doc};
use uuid::Uuid;

use crate::model::{NodeRecord, PartContent};

/// The index layout's version, written to the `version` file beside it.
pub const INDEX_VERSION: u32 = 2;

/// The name of a marker's count of indexed nodes (read back as a fast field).
pub const INDEXED_FIELD: &str = "indexed";

/// The fields of the schema.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// A node's session (hyphenated id).
    pub session: Field,
    /// A node's number in its session.
    pub node: Field,
    /// `user`, `model` or `tool`.
    pub role: Field,
    /// When the node was made (ms since the epoch).
    pub time: Field,
    /// Every word of the node.
    pub text: Field,
    /// A session's marker (hyphenated id): only marker documents have it.
    pub marker: Field,
    /// A marker's count of indexed nodes.
    pub indexed: Field,
}

impl Fields {
    /// The schema and its fields.
    pub fn schema() -> (Schema, Fields) {
        let mut builder = Schema::builder();
        let fields = Fields {
            session: builder.add_text_field("session", STRING | STORED),
            node: builder.add_u64_field("node", INDEXED | STORED),
            role: builder.add_text_field("role", STRING | STORED),
            time: builder.add_u64_field("time", INDEXED | STORED | FAST),
            text: builder.add_text_field("text", TEXT | STORED),
            marker: builder.add_text_field("marker", STRING),
            // Fast: the indexer reads every session's count back at start, and a stored
            // field is read by decompressing a whole block of the document store.
            indexed: builder.add_u64_field(INDEXED_FIELD, STORED | FAST),
        };
        (builder.build(), fields)
    }

    /// The term naming every node document of a session.
    pub fn session_term(&self, session: &Uuid) -> Term {
        Term::from_field_text(self.session, &session.to_string())
    }

    /// The term naming a session's marker.
    pub fn marker_term(&self, session: &Uuid) -> Term {
        Term::from_field_text(self.marker, &session.to_string())
    }

    /// A node's document.
    pub fn node_document(&self, session: &Uuid, node: &NodeRecord) -> TantivyDocument {
        doc!(
            self.session => session.to_string(),
            self.node => node.id,
            self.role => node.role.as_str(),
            self.time => node.created_at_ms,
            self.text => searchable_text(node),
        )
    }

    /// A session's marker: `indexed` of its nodes are in the index.
    pub fn marker_document(&self, session: &Uuid, indexed: u64) -> TantivyDocument {
        doc!(self.marker => session.to_string(), self.indexed => indexed)
    }

    /// How many of `session`'s nodes its marker says are indexed (none: no marker). Read
    /// from the fast field: no block of the document store is decompressed for it.
    pub fn marker_count(
        &self,
        searcher: &Searcher,
        session: &Uuid,
    ) -> tantivy::Result<Option<u64>> {
        let query = TermQuery::new(self.marker_term(session), IndexRecordOption::Basic);
        let found = searcher.search(&query, &TopDocs::with_limit(1).order_by_score())?;
        let Some((_, address)) = found.first() else {
            return Ok(None);
        };
        let segment = searcher.segment_reader(address.segment_ord);
        let counts = segment.fast_fields().u64(INDEXED_FIELD)?;
        Ok(counts.first(address.doc_id))
    }

    /// A stored u64 of a document.
    pub fn u64_of(&self, document: &TantivyDocument, field: Field) -> Option<u64> {
        document.get_first(field).and_then(|v| v.as_u64())
    }

    /// A stored text of a document.
    pub fn text_of<'a>(&self, document: &'a TantivyDocument, field: Field) -> Option<&'a str> {
        document.get_first(field).and_then(|v| v.as_str())
    }
}

/// Every word a node holds, one part a line: text, thoughts, function calls (name and
/// arguments) and their results; raw parts of unknown kinds are left out.
pub fn searchable_text(node: &NodeRecord) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for part in &node.parts {
        match &part.content {
            PartContent::Text(text) | PartContent::Thought(text) => lines.push(text),
            PartContent::FunctionCall {
                name, args_json, ..
            } => lines.extend([name.as_str(), args_json.as_str()]),
            PartContent::FunctionResponse {
                name,
                response_json,
                ..
            } => lines.extend([name.as_str(), response_json.as_str()]),
            PartContent::Other { .. } | PartContent::Compaction { .. } => {}
        }
    }
    lines.join("\n")
}
