//! Readers of other tools' history files, for `omnictl import`: Claude Code's project files,
//! gemini-cli's saved chats, checkpoints and session files, Codex CLI's rollout files, and
//! Omni's own JSON export. Each reader is a pure function from one file's bytes to the
//! sessions it holds (in Omni's export shape, [`ExportedSession`]) and the warnings met on
//! the way: a malformed line is reported with its number and skipped, never half-read.
//! [`detect`] tells a file's tool from its content; [`walk`] finds the files of a folder.
//! Reading happens here, on the client, with the user's permissions; the daemon never
//! opens a path a client names.

mod claude_code;
mod codex;
mod gemini_cli;
mod gemini_parts;
mod gemini_session;
mod lines;
mod omni;
mod tree;
mod walk;

use std::fmt;
use std::path::{Path, PathBuf};

use omni_proto::ExportedSession;

pub use walk::walk;

/// The formats `omnictl import` reads: the tools whose files can be imported (`--from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Source {
    /// Omni's own JSON export (`omnictl export --format json`).
    Omni,
    /// Claude Code's project files (`~/.claude/projects/*/*.jsonl`).
    ClaudeCode,
    /// gemini-cli's saved chats, checkpoints and session files (`~/.gemini/tmp/`).
    GeminiCli,
    /// Codex CLI's rollout files (`~/.codex/sessions/**/rollout-*.jsonl`).
    Codex,
}

impl Source {
    /// The tool's name as origins carry it (`import (claude-code: FILE)`) and `--from` takes.
    pub fn tool(self) -> &'static str {
        match self {
            Source::Omni => "omni",
            Source::ClaudeCode => "claude-code",
            Source::GeminiCli => "gemini-cli",
            Source::Codex => "codex",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tool())
    }
}

/// Something wrong in a file that was skipped while the rest was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file.
    pub file: PathBuf,
    /// The line (from 1), when the problem is on one.
    pub line: Option<u64>,
    /// What is wrong, in words.
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

/// What one file held.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Read {
    /// The sessions read, whole (none when the file held no conversation).
    pub sessions: Vec<ExportedSession>,
    /// What was skipped, and why.
    pub warnings: Vec<Warning>,
}

/// Why a file could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file cannot be opened or read.
    #[error("{}: cannot be read ({reason})", file.display())]
    Unreadable {
        /// The file.
        file: PathBuf,
        /// What the system said.
        reason: String,
    },
    /// No reader recognises the file's content.
    #[error("{}: not a file of any tool omnictl imports (omni, claude-code, gemini-cli, codex)", .0.display())]
    Unrecognised(PathBuf),
    /// The file is of the tool named but cannot be read as a whole.
    #[error("{}: not a {tool} file: {reason}", file.display())]
    Malformed {
        /// The file.
        file: PathBuf,
        /// The tool it was read as.
        tool: Source,
        /// What is wrong.
        reason: String,
    },
}

/// The files `paths` name: files as given, folders walked for the files of a tool (see
/// [`walk`]); what cannot be looked at is reported.
pub fn files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<Warning>) {
    let (mut found, mut warnings) = (Vec::new(), Vec::new());
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let (files, problems) = walk(path);
                found.extend(files.into_iter().map(|file| file.path));
                warnings.extend(problems);
            }
            Ok(_) => found.push(path.clone()),
            Err(error) => warnings.push(Warning {
                file: path.clone(),
                line: None,
                message: format!("cannot be read ({error})"),
            }),
        }
    }
    (found, warnings)
}

/// Reads the file at `path` as `from`'s, or as the tool it looks like; says which it was.
pub fn read(path: &Path, from: Option<Source>) -> Result<(Source, Read), ImportError> {
    let bytes = std::fs::read(path).map_err(|error| ImportError::Unreadable {
        file: path.to_path_buf(),
        reason: error.to_string(),
    })?;
    let tool = match from {
        Some(tool) => tool,
        None => {
            detect(path, &bytes).ok_or_else(|| ImportError::Unrecognised(path.to_path_buf()))?
        }
    };
    read_file(path, &bytes, Some(tool)).map(|read| (tool, read))
}

/// Reads one file's `bytes` (read from `path`) as `from`'s, or as the tool [`detect`] finds.
pub fn read_file(path: &Path, bytes: &[u8], from: Option<Source>) -> Result<Read, ImportError> {
    let tool = match from {
        Some(tool) => tool,
        None => detect(path, bytes).ok_or_else(|| ImportError::Unrecognised(path.to_path_buf()))?,
    };
    let source = Input { path, tool };
    match tool {
        Source::Omni => omni::read(&source, bytes),
        Source::ClaudeCode => claude_code::read(&source, bytes),
        Source::GeminiCli => gemini_cli::read(&source, bytes),
        Source::Codex => codex::read(&source, bytes),
    }
}

/// The tool whose file `bytes` is, judged from its content (the first records), or `None`.
pub fn detect(path: &Path, bytes: &[u8]) -> Option<Source> {
    let text = String::from_utf8_lossy(bytes);
    let first = lines::first_records(&text, 8);
    if omni::looks_like(&text) {
        Some(Source::Omni)
    } else if first.iter().any(codex::looks_like) {
        Some(Source::Codex)
    } else if first.iter().any(claude_code::looks_like) {
        Some(Source::ClaudeCode)
    } else if gemini_cli::looks_like(path, &text, &first) {
        Some(Source::GeminiCli)
    } else {
        None
    }
}

/// The file being read and as which tool's, for origins and warnings.
pub(crate) struct Input<'a> {
    /// The file's path as given.
    pub path: &'a Path,
    /// The tool it is read as.
    pub tool: Source,
}

impl Input<'_> {
    /// `import (<tool>: <file>)`, the origin every imported session carries.
    pub fn origin(&self) -> String {
        format!("import ({}: {})", self.tool, self.path.display())
    }

    /// A warning about line `line` (from 1) of this file.
    pub fn warn(&self, line: Option<usize>, message: impl Into<String>) -> Warning {
        Warning {
            file: self.path.to_path_buf(),
            line: line.map(|line| line as u64),
            message: message.into(),
        }
    }

    /// The error for a file that cannot be read as this tool's at all.
    pub fn malformed(&self, reason: impl Into<String>) -> ImportError {
        ImportError::Malformed {
            file: self.path.to_path_buf(),
            tool: self.tool,
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! What the readers' tests compare: a session's shape in a line per node.

    use omni_proto::{ExportedSession, PartContent};

    /// `(id, parent, role, summary of parts)` for every node.
    pub fn outline(session: &ExportedSession) -> Vec<(u64, u64, &'static str, String)> {
        session
            .nodes
            .iter()
            .map(|node| {
                let parts: Vec<String> = node.parts.iter().map(|p| part(&p.content)).collect();
                (node.id, node.parent, node.role.as_str(), parts.join(" | "))
            })
            .collect()
    }

    fn part(content: &PartContent) -> String {
        match content {
            PartContent::Text(text) => text.clone(),
            PartContent::Thought(text) => format!("thought: {text}"),
            PartContent::FunctionCall { id, name, .. } => {
                format!("call {name} {}", id.as_deref().unwrap_or("-"))
            }
            PartContent::FunctionResponse { id, name, .. } => {
                format!("result {name} {}", id.as_deref().unwrap_or("-"))
            }
            PartContent::Other { json } => format!("other {json}"),
            PartContent::Compaction { resumes_at, .. } => format!("compaction {resumes_at:?}"),
        }
    }
}
