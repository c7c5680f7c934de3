//! Omni's own export: one [`ExportedSession`] as JSON (`--format json`), or JSON lines
//! (`--format jsonl`: the session without its nodes, then one node per line; a line that
//! cannot be read is reported with its number and the rest kept).

use std::path::Path;

use omni_proto::{EXPORT_FORMAT, ExportedNode, ExportedSession, ExportedSessionLine};

use super::{Read, Warning};

/// Whether a file is an Omni export: it names the format near its start.
pub fn looks_like(_path: &Path, bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let marker = format!("\"format\":\"{EXPORT_FORMAT}\"");
    let spaced = format!("\"format\": \"{EXPORT_FORMAT}\"");
    let text = String::from_utf8_lossy(head);
    text.contains(&marker) || text.contains(&spaced)
}

/// The session a file holds.
pub fn read(path: &Path, bytes: &[u8]) -> Result<Read, String> {
    let whole = match serde_json::from_slice::<ExportedSession>(bytes) {
        Ok(session) => {
            return Ok(Read {
                sessions: vec![session],
                warnings: Vec::new(),
            });
        }
        Err(error) => error,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let first = lines.next().map_or("", |(_, line)| line);
    let head: ExportedSessionLine =
        serde_json::from_str(first).map_err(|_| format!("not an Omni export: {whole}"))?;
    let mut session = head.session;
    let mut warnings = Vec::new();
    for (index, line) in lines {
        match serde_json::from_str::<ExportedNode>(line) {
            Ok(node) => session.nodes.push(node),
            Err(e) => warnings.push(Warning {
                file: path.to_path_buf(),
                line: Some(index as u64 + 1),
                message: format!("a node that cannot be read ({e}); skipped"),
            }),
        }
    }
    Ok(Read {
        sessions: vec![session],
        warnings,
    })
}
