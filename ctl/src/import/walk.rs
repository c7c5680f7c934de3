//! Finds the importable files of a folder: every file below it (hidden folders included,
//! as `~/.claude` and `~/.codex` are; symbolic links not followed) whose content one of the
//! readers recognises, each with its tool. Files of no tool (settings, prompt logs, tools'
//! caches) are passed over silently; folders that cannot be read are reported.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::{Source, Warning, detect};

/// How much of a JSON Lines file tells its tool (its first records).
const SNIFF_BYTES: u64 = 256 * 1024;

/// One file found, and its tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The file.
    pub path: PathBuf,
    /// Whose file it is.
    pub tool: Source,
}

/// The importable files below `folder`, in path order, and what could not be looked at.
pub fn walk(folder: &Path) -> (Vec<Found>, Vec<Warning>) {
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) => {
                warnings.push(unreadable(&dir, &error));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file()
                && let Some(tool) = tool_of(&path, &mut warnings)
            {
                found.push(Found { path, tool });
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    (found, warnings)
}

/// The tool of one file, judged from its name's extension and its content.
fn tool_of(path: &Path, warnings: &mut Vec<Warning>) -> Option<Source> {
    let extension = path.extension()?.to_str()?;
    let limit = match extension {
        "jsonl" => SNIFF_BYTES,
        "json" => u64::MAX,
        _ => return None,
    };
    let mut bytes = Vec::new();
    let read = fs::File::open(path).and_then(|file| file.take(limit).read_to_end(&mut bytes));
    if let Err(error) = read {
        warnings.push(unreadable(path, &error));
        return None;
    }
    detect(path, &bytes)
}

fn unreadable(path: &Path, error: &std::io::Error) -> Warning {
    Warning {
        file: path.to_path_buf(),
        line: None,
        message: format!("cannot be read ({error}); passed over"),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/import");

    #[test]
    fn every_fixture_is_found_with_its_tool() {
        let (found, warnings) = walk(Path::new(FIXTURES));
        assert!(warnings.is_empty(), "{warnings:?}");
        let named: Vec<(String, Source)> = found
            .iter()
            .map(|f| {
                let name = f.path.strip_prefix(FIXTURES).unwrap_or(&f.path);
                (name.to_string_lossy().into_owned(), f.tool)
            })
            .collect();
        for (name, tool) in &named {
            let expected = match name.split('/').next() {
                Some("claude-code") => Source::ClaudeCode,
                Some("codex") => Source::Codex,
                Some("gemini-cli") => Source::GeminiCli,
                _ => panic!("a file outside the tools' folders: {name}"),
            };
            assert_eq!(*tool, expected, "{name}");
        }
        let count = |tool| named.iter().filter(|(_, t)| *t == tool).count();
        assert!(
            count(Source::ClaudeCode) >= 2 && count(Source::Codex) >= 2,
            "{named:?}"
        );
        assert!(count(Source::GeminiCli) >= 3, "{named:?}");
    }

    #[test]
    fn files_of_no_tool_are_passed_over() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let nested = dir.path().join(".codex");
        fs::create_dir(&nested).expect("mkdir");
        fs::write(
            nested.join("history.jsonl"),
            "{\"session_id\":\"s\",\"ts\":1,\"text\":\"hi\"}\n",
        )
        .expect("write");
        fs::write(nested.join("config.toml"), "model = \"x\"\n").expect("write");
        let rollout = nested.join("rollout-1.jsonl");
        let meta =
            r#"{"timestamp":"2025-06-02T08:00:00Z","type":"session_meta","payload":{"id":"s"}}"#;
        fs::write(&rollout, format!("{meta}\n")).expect("write");
        let (found, _) = walk(dir.path());
        assert_eq!(
            found,
            [Found {
                path: rollout,
                tool: Source::Codex
            }]
        );
    }
}
