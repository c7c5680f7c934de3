//! The line editor at a terminal (rustyline): prompt history kept per user, completion of
//! slash commands, their words, node numbers and session ids (listed on a second Tab),
//! and multi-line prompts (a `"""` block, or Alt-Enter for a newline).

use std::path::PathBuf;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{
    Cmd, CompletionType, Config, Context, Editor, EventHandler, Helper, KeyCode, KeyEvent,
    Modifiers,
};

use super::entry::{Line, block_is_open, classify};
use super::lookup::{Candidate, Lookup};
use super::slash;

/// Completion and validation for the chat's editor.
struct ChatHelper {
    /// Where node numbers and session ids come from.
    lookup: Lookup,
}

impl ChatHelper {
    /// Completions of the argument of `/checkout`, `/edit` and `/switch`, asked of the
    /// daemon; where the argument starts.
    fn complete_argument(&self, typed: &str) -> Option<(usize, Vec<Candidate>)> {
        let (name, word) = typed.split_once(' ')?;
        if word.contains(' ') {
            return None;
        }
        let candidates = match name {
            "/checkout" | "/edit" => self.lookup.nodes(word),
            "/switch" => self.lookup.sessions(word),
            _ => return None,
        };
        Some((typed.len() - word.len(), candidates))
    }
}

impl Completer for ChatHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        if let Some((start, candidates)) = self.complete_argument(&line[..pos]) {
            let pairs = candidates
                .into_iter()
                .map(|c| Pair {
                    display: c.shown,
                    replacement: c.word,
                })
                .collect();
            return Ok((start, pairs));
        }
        let (start, words) = slash::complete(line, pos);
        let pairs = words
            .into_iter()
            .map(|word| Pair {
                display: word.clone(),
                replacement: word,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ChatHelper {
    type Hint = String;
}

impl Highlighter for ChatHelper {}

impl Validator for ChatHelper {
    /// Enter inside an open `"""` block adds a line instead of sending.
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        let lines: Vec<&str> = ctx.input().lines().collect();
        Ok(if block_is_open(&lines) {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Helper for ChatHelper {}

/// Where the prompt history lives: `$XDG_STATE_HOME/omni/chat_history`, else
/// `~/.local/state/omni/chat_history`.
pub fn history_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/state"))
        })?;
    Some(state.join("omni").join("chat_history"))
}

/// Makes sure the history file exists, readable by its user only (its directory too, when
/// made here): prompts can hold anything.
fn private_file(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
}

/// The chat's line editor.
pub struct LineEditor {
    editor: Editor<ChatHelper, FileHistory>,
    history: Option<PathBuf>,
}

impl LineEditor {
    /// An editor with the user's prompt history loaded (made empty, 0600, when missing; a
    /// file that cannot be made means no history is kept); Tab asks `lookup` for node
    /// numbers and session ids, and lists what it offers.
    pub fn open(lookup: Lookup) -> Result<Self, String> {
        let config = Config::builder()
            .completion_type(CompletionType::List)
            .auto_add_history(false)
            .history_ignore_space(true)
            .max_history_size(5000)
            .map_err(|e| e.to_string())?
            .build();
        let mut editor: Editor<ChatHelper, FileHistory> =
            Editor::with_config(config).map_err(|e| e.to_string())?;
        editor.set_helper(Some(ChatHelper { lookup }));
        editor.bind_sequence(
            KeyEvent(KeyCode::Enter, Modifiers::ALT),
            EventHandler::Simple(Cmd::Newline),
        );
        let history = history_path().filter(|path| private_file(path).is_ok());
        if let Some(path) = &history {
            let _ = editor.load_history(path);
        }
        Ok(Self { editor, history })
    }

    /// Reads one entry, with `initial` already in the editor. Blocks: call it off the
    /// runtime.
    pub fn read(&mut self, prompt: &str, initial: &str) -> Line {
        match self.editor.readline_with_initial(prompt, (initial, "")) {
            Ok(text) => {
                if !text.trim().is_empty() {
                    self.remember(&text);
                }
                classify(&text)
            }
            Err(ReadlineError::Interrupted) => Line::Interrupted,
            Err(ReadlineError::Eof) => Line::End,
            Err(error) => Line::Broken(error.to_string()),
        }
    }

    /// Tab offers the node numbers of `session` from now on.
    pub fn follow(&mut self, session: &str) {
        if let Some(helper) = self.editor.helper_mut() {
            helper.lookup.session = session.to_string();
        }
    }

    /// Adds a line to the history and appends it to the user's file (0600).
    fn remember(&mut self, text: &str) {
        let _ = self.editor.add_history_entry(text);
        if let Some(path) = &self.history {
            let _ = self.editor.append_history(path);
        }
    }
}
