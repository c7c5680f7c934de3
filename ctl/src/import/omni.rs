//! Omni's own export: one [`ExportedSession`] (`omnictl export --format json`), a list of
//! them, or JSON lines (`--format jsonl`: the session without its nodes, then one node per
//! line; a line that cannot be read is reported with its number and the rest kept). It is
//! read as written, so export then import gives the same tree; a session without an
//! origin (one held through omnid itself) gets the import's origin.

use omni_proto::{
    EXPORT_FORMAT, EXPORT_VERSION, ExportedNode, ExportedSession, ExportedSessionLine,
};
use serde_json::Value;

use super::{ImportError, Input, Read};

/// Whether `text` is an Omni export (its `format` names it), whole or as JSON lines.
pub(crate) fn looks_like(text: &str) -> bool {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return false;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(list)) => !list.is_empty() && list.iter().all(is_export),
        Ok(value) => is_export(&value),
        // JSON lines, or an export cut short, which is still read as one (and refused
        // by name rather than passed over).
        Err(_) => first_line(text).is_some_and(|line| is_lines_head(&line)) || names_format(text),
    }
}

/// Whether the start of `text` says it is an export (`"format": "omni.session"`).
fn names_format(text: &str) -> bool {
    let start: String = text.chars().take(4096).collect();
    let compact: String = start.chars().filter(|c| !c.is_whitespace()).collect();
    compact.contains(&format!("\"format\":\"{EXPORT_FORMAT}\""))
}

/// The first line of JSON lines, as JSON.
fn first_line(text: &str) -> Option<Value> {
    let line = text.lines().find(|line| !line.trim().is_empty())?;
    serde_json::from_str(line).ok()
}

/// Whether a line opens an export in JSON lines.
fn is_lines_head(value: &Value) -> bool {
    is_export(value) && value["kind"] == "session"
}

fn is_export(value: &Value) -> bool {
    value["format"] == EXPORT_FORMAT
}

/// Reads one export file.
pub(crate) fn read(source: &Input<'_>, bytes: &[u8]) -> Result<Read, ImportError> {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(error) => return read_lines(source, bytes, &error),
    };
    let list = match value {
        Value::Array(list) => list,
        single => vec![single],
    };
    let mut sessions = Vec::with_capacity(list.len());
    for item in list {
        if !is_export(&item) {
            return Err(source.malformed(format!("its format is not {EXPORT_FORMAT:?}")));
        }
        let version = item["version"].as_u64().unwrap_or(0);
        if version > u64::from(EXPORT_VERSION) {
            return Err(source.malformed(format!(
                "export version {version} is newer than this omnictl reads ({EXPORT_VERSION})"
            )));
        }
        let mut session: ExportedSession = serde_json::from_value(item)
            .map_err(|error| source.malformed(format!("not an Omni export ({error})")))?;
        session.origin.get_or_insert_with(|| source.origin());
        sessions.push(session);
    }
    Ok(Read {
        sessions,
        warnings: Vec::new(),
    })
}

/// Reads an export in JSON lines: the session, then its nodes one per line.
fn read_lines(
    source: &Input<'_>,
    bytes: &[u8],
    whole: &serde_json::Error,
) -> Result<Read, ImportError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|error| source.malformed(format!("not UTF-8 text ({error})")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty());
    let first = lines.next().map_or("", |(_, line)| line);
    let head: ExportedSessionLine =
        serde_json::from_str(first).map_err(|_| source.malformed(format!("not JSON ({whole})")))?;
    let mut session = head.session;
    let mut warnings = Vec::new();
    for (index, line) in lines {
        match serde_json::from_str::<ExportedNode>(line) {
            Ok(node) => session.nodes.push(node),
            Err(error) => warnings.push(source.warn(
                Some(index + 1),
                format!("a node that cannot be read ({error}); skipped"),
            )),
        }
    }
    session.origin.get_or_insert_with(|| source.origin());
    Ok(Read {
        sessions: vec![session],
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::import::{ImportError, Source, detect, read_file};

    const CLAUDE: &[u8] =
        include_bytes!("../../../tests/fixtures/import/claude-code/branches.jsonl");

    #[test]
    fn an_export_reads_back_as_the_same_session() {
        let read = read_file(Path::new("c.jsonl"), CLAUDE, None).expect("reads");
        let session = read.sessions[0].clone();
        let json = serde_json::to_vec_pretty(&session).expect("serialises");
        assert_eq!(detect(Path::new("export.json"), &json), Some(Source::Omni));
        let back = read_file(Path::new("export.json"), &json, None).expect("reads back");
        assert_eq!(back.sessions, [session], "the origin it had is kept too");
        let mut own = read.sessions[0].clone();
        own.origin = None;
        let json = serde_json::to_vec(&[own]).expect("serialises");
        let back = read_file(Path::new("e.json"), &json, None).expect("reads back");
        assert_eq!(
            back.sessions[0].origin.as_deref(),
            Some("import (omni: e.json)")
        );
    }

    #[test]
    fn a_newer_export_or_a_forced_wrong_tool_is_refused_by_name() {
        let newer = r#"{"format":"omni.session","version":99}"#;
        let error = read_file(Path::new("n.json"), newer.as_bytes(), None).expect_err("refused");
        assert!(error.to_string().contains("version 99 is newer"), "{error}");
        let error =
            read_file(Path::new("c.jsonl"), CLAUDE, Some(Source::Codex)).expect_err("refused");
        assert!(
            matches!(
                error,
                ImportError::Malformed {
                    tool: Source::Codex,
                    ..
                }
            ),
            "{error}"
        );
        let error = read_file(Path::new("x.txt"), b"hello\n", None).expect_err("refused");
        assert!(matches!(error, ImportError::Unrecognised(_)), "{error}");
    }
}
