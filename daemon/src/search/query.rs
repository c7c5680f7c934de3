//! Running a query: the words, ranked (BM25), narrowed to a session, a role and a time;
//! hits of sessions the caller does not keep (in the trash, archived) are skipped and more
//! are read until enough are found. Each hit carries a snippet and where its matches are.

use std::ops::{Bound, Range};

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, QueryParser, RangeQuery, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::snippet::SnippetGenerator;
use tantivy::{TantivyDocument, Term};
use uuid::Uuid;

use super::SearchError;
use super::open::Open;

/// The most characters of a snippet.
const SNIPPET_CHARS: usize = 160;

/// A search.
#[derive(Debug, Clone)]
pub struct Query {
    /// The words (tantivy's query syntax: `"a phrase"`, `-word`, `a OR b`); every word
    /// must match unless `OR` says otherwise.
    pub text: String,
    /// Only this session's nodes.
    pub session: Option<Uuid>,
    /// Only nodes of this role (`user`, `model`, `tool`).
    pub role: Option<String>,
    /// Only nodes made at or after this time (ms since the epoch).
    pub since_ms: Option<u64>,
    /// At most this many hits.
    pub limit: usize,
}

/// One node that matches.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Its session.
    pub session: Uuid,
    /// Its number in the session.
    pub node: u64,
    /// `user`, `model` or `tool`.
    pub role: String,
    /// When it was made.
    pub created_at_ms: u64,
    /// Its relevance (higher is better).
    pub score: f32,
    /// A piece of its text around the best match.
    pub snippet: String,
    /// The matches in `snippet`, as byte ranges.
    pub highlights: Vec<Range<usize>>,
}

pub(super) fn run(
    open: &Open,
    query: &Query,
    mut keep: impl FnMut(&Uuid) -> bool,
) -> Result<Vec<Hit>, SearchError> {
    super::bounds::check(&query.text)?;
    let fields = open.fields;
    let mut parser = QueryParser::for_index(&open.index, vec![fields.text]);
    parser.set_conjunction_by_default();
    let (words, _) = parser.parse_query_lenient(&query.text);
    let mut clauses = vec![(Occur::Must, words.box_clone())];
    if let Some(session) = &query.session {
        clauses.push((Occur::Must, term(fields.session_term(session))));
    }
    if let Some(role) = &query.role {
        clauses.push((Occur::Must, term(Term::from_field_text(fields.role, role))));
    }
    if let Some(since) = query.since_ms {
        let from = Bound::Included(Term::from_field_u64(fields.time, since));
        clauses.push((
            Occur::Must,
            Box::new(RangeQuery::new(from, Bound::Unbounded)),
        ));
    }
    let whole = BooleanQuery::new(clauses);
    let searcher = open.reader.searcher();
    let mut snippets = SnippetGenerator::create(&searcher, &*words, fields.text)?;
    snippets.set_max_num_chars(SNIPPET_CHARS);
    let mut hits = Vec::new();
    let mut offset = 0;
    let page = (query.limit * 2).max(20);
    while hits.len() < query.limit {
        let collector = TopDocs::with_limit(page)
            .and_offset(offset)
            .order_by_score();
        let found = searcher.search(&whole, &collector)?;
        for (score, address) in &found {
            let document: TantivyDocument = searcher.doc(*address)?;
            let Some(hit) = hit_of(open, &snippets, &document, *score) else {
                continue;
            };
            if keep(&hit.session) {
                hits.push(hit);
                if hits.len() == query.limit {
                    break;
                }
            }
        }
        if found.len() < page {
            break;
        }
        offset += page;
    }
    Ok(hits)
}

fn term(term: Term) -> Box<dyn tantivy::query::Query> {
    Box::new(TermQuery::new(term, IndexRecordOption::Basic))
}

fn hit_of(
    open: &Open,
    snippets: &SnippetGenerator,
    document: &TantivyDocument,
    score: f32,
) -> Option<Hit> {
    let fields = open.fields;
    let session = Uuid::parse_str(fields.text_of(document, fields.session)?).ok()?;
    let text = fields.text_of(document, fields.text).unwrap_or_default();
    let (snippet, highlights) = snippet_of(snippets, text);
    Some(Hit {
        session,
        node: fields.u64_of(document, fields.node)?,
        role: fields.text_of(document, fields.role)?.to_string(),
        created_at_ms: fields.u64_of(document, fields.time).unwrap_or(0),
        score,
        snippet,
        highlights,
    })
}

/// The piece of `text` around its best match and the matches in it (byte ranges in the
/// piece); the start of the text when no word matches.
fn snippet_of(snippets: &SnippetGenerator, text: &str) -> (String, Vec<Range<usize>>) {
    let text = text.trim();
    let snippet = snippets.snippet(text);
    if snippet.fragment().is_empty() {
        return (opening(text), Vec::new());
    }
    let range = widened(text, snippet.fragment_range());
    let shift = snippet.fragment_range().start - range.start;
    let highlights = snippet
        .highlighted()
        .iter()
        .map(|h| h.start + shift..h.end + shift)
        .collect();
    (text[range].to_string(), highlights)
}

/// `range` of `text` grown over the punctuation that touches it on either side: tantivy's
/// fragment runs from the first word's first letter to the last word's last, so `And a
/// zebra?` would lose its `?` (and `"quoted"` its quotes).
fn widened(text: &str, range: Range<usize>) -> Range<usize> {
    let mark = |c: &char| !c.is_whitespace() && !c.is_alphanumeric();
    let before: usize = text[..range.start]
        .chars()
        .rev()
        .take_while(mark)
        .map(char::len_utf8)
        .sum();
    let after: usize = text[range.end..]
        .chars()
        .take_while(mark)
        .map(char::len_utf8)
        .sum();
    range.start - before..range.end + after
}

/// The start of a text, when no match is in it (a query of filters and negations only).
fn opening(text: &str) -> String {
    text.chars().take(SNIPPET_CHARS).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // in tests a panic is the failure report

    use tantivy::query::QueryParser;
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{Index, doc};

    use super::*;

    /// The snippet and its marked words for `text` searched for `words`.
    fn snippet(text: &str, words: &str) -> (String, Vec<String>) {
        let mut schema = Schema::builder();
        let field = schema.add_text_field("text", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.add_document(doc!(field => text)).unwrap();
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let query = QueryParser::for_index(&index, vec![field])
            .parse_query(words)
            .unwrap();
        let mut snippets = SnippetGenerator::create(&searcher, &*query, field).unwrap();
        snippets.set_max_num_chars(SNIPPET_CHARS);
        let (snippet, highlights) = snippet_of(&snippets, text);
        let marked = highlights.iter().map(|h| snippet[h.clone()].to_string());
        (snippet.clone(), marked.collect())
    }

    #[test]
    fn a_snippet_keeps_the_punctuation_around_its_words() {
        assert_eq!(
            snippet("And a zebra?", "zebra"),
            ("And a zebra?".to_string(), vec!["zebra".to_string()])
        );
        assert_eq!(
            snippet("«Où est le zèbre?!» dit-il.", "zèbre"),
            (
                "«Où est le zèbre?!» dit-il.".to_string(),
                vec!["zèbre".to_string()]
            )
        );
    }

    #[test]
    fn a_snippet_cut_from_a_long_text_keeps_its_punctuation_and_marks() {
        // The words before fill the first fragment: the second starts at "zebra".
        let text = format!("{}(zebra?) ", "filler ".repeat(23));
        assert_eq!(
            snippet(&text, "zebra"),
            ("(zebra?)".to_string(), vec!["zebra".to_string()])
        );
    }
}
