//! Reading sessions out of files for `omnictl import`: Omni's own export (omni.rs) and the
//! session files of other tools, each turned into Omni's export format
//! ([`ExportedSession`]), which the daemon imports. Reading happens here, on the client,
//! with the user's permissions; the daemon never opens a path a client names.
//!
//! Each format is a pure function from a file's bytes to sessions and warnings. [`read`]
//! picks the format (the one asked with `--from`, else [`detect`]) and calls it.

mod omni;

use std::fmt;
use std::path::{Path, PathBuf};

use omni_proto::ExportedSession;

/// The formats `omnictl import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Source {
    /// Omni's own export (`omnictl export --format json` or `jsonl`).
    Omni,
    /// Claude Code's session files (`~/.claude/projects/*/*.jsonl`).
    ClaudeCode,
    /// gemini-cli's saved chats, checkpoints and session files (`~/.gemini/`).
    GeminiCli,
    /// Codex CLI's rollout files (`~/.codex/sessions/**/rollout-*.jsonl`).
    Codex,
}

impl Source {
    /// The tool's name as origins carry it (`import (claude-code: FILE)`).
    pub fn tool(self) -> &'static str {
        match self {
            Source::Omni => "omni",
            Source::ClaudeCode => "claude-code",
            Source::GeminiCli => "gemini-cli",
            Source::Codex => "codex",
        }
    }
}

/// Something a reader skipped or doubted; the rest of the file is still imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file.
    pub file: PathBuf,
    /// The line (from 1), for line-based formats.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

/// What a file gave.
#[derive(Debug, Default)]
pub struct Read {
    /// The sessions, in Omni's export format.
    pub sessions: Vec<ExportedSession>,
    /// What was skipped.
    pub warnings: Vec<Warning>,
}

/// Why a whole file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// The file.
    pub file: PathBuf,
    /// Why.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

impl std::error::Error for ReadError {}

/// Reads one file in the format `from` (or the one it looks like) and says which it was.
pub fn read(path: &Path, from: Option<Source>) -> Result<(Source, Read), ReadError> {
    let failed = |message: String| ReadError {
        file: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| failed(e.to_string()))?;
    let source = match from.or_else(|| detect(path, &bytes)) {
        Some(source) => source,
        None => {
            return Err(failed(
                "not a session file omnictl knows; name its format with --from".into(),
            ));
        }
    };
    let read = match source {
        Source::Omni => omni::read(path, &bytes),
        other => Err(format!("reading {} files is not built yet", other.tool())),
    };
    read.map(|read| (source, read)).map_err(failed)
}

/// The format a file looks like, from its name and first bytes.
pub fn detect(path: &Path, bytes: &[u8]) -> Option<Source> {
    omni::looks_like(path, bytes).then_some(Source::Omni)
}

/// The files under `paths`: files as given, folders walked (hidden entries and symbolic
/// links skipped) for files whose names a format reads, in name order.
pub fn files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<ReadError>) {
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => walk(path, &mut found, &mut errors),
            Ok(_) => found.push(path.clone()),
            Err(e) => errors.push(ReadError {
                file: path.clone(),
                message: e.to_string(),
            }),
        }
    }
    (found, errors)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>, errors: &mut Vec<ReadError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(ReadError {
                file: dir.to_path_buf(),
                message: e.to_string(),
            });
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    for path in paths {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        // Not followed: a link to a folder could lead back up and never end.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            walk(&path, found, errors);
        } else if meta.is_file() && is_session_file(&path) {
            found.push(path);
        }
    }
}

/// Names a format reads: `.json` and `.jsonl`.
fn is_session_file(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("json" | "jsonl")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_walked_for_session_files_without_following_links_or_hidden_entries() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let write = |name: &str| {
            let path = root.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            std::fs::write(&path, "{}").unwrap_or_else(|e| panic!("{e}"));
        };
        write("a.json");
        write("deep/b.jsonl");
        write("notes.txt");
        write(".hidden/c.json");
        std::os::unix::fs::symlink(root, root.join("deep/loop")).unwrap_or_else(|e| panic!("{e}"));
        let (found, errors) = files(&[root.to_path_buf(), root.join("missing.json")]);
        assert_eq!(found, vec![root.join("a.json"), root.join("deep/b.jsonl")]);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].to_string().contains("missing.json"),
            "{}",
            errors[0]
        );
    }
}
