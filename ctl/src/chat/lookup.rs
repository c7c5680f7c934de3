//! What Tab offers after `/checkout`, `/edit` and `/switch`: the session's node numbers and
//! the daemon's session ids, asked for when Tab is pressed. The line editor reads keys on
//! a thread of its own, so the question goes over a connection and a runtime of its own,
//! and gives up after a moment rather than hang the editor.

use std::path::PathBuf;
use std::time::Duration;

use omni_proto::{Call, Entry, History, SessionRef};

use crate::commands::Ctx;

/// How long Tab waits for the daemon before offering nothing.
const PATIENCE: Duration = Duration::from_secs(2);

/// A word Tab can put in, and what the list of them shows for it.
pub struct Candidate {
    /// The word put in the line.
    pub word: String,
    /// The word with a reminder of what it names.
    pub shown: String,
}

/// Where to ask: the daemon's socket and the chat's session.
pub struct Lookup {
    socket: PathBuf,
    /// The session the chat is in (it changes with `/switch` and `/new`).
    pub session: String,
}

impl Lookup {
    /// Asks the daemon at `socket` about `session`.
    pub fn new(socket: PathBuf, session: String) -> Self {
        Self { socket, session }
    }

    /// The session's node numbers starting with `typed` (a leading `#` allowed), newest
    /// first, each shown with its role and first line; `0` is the start.
    pub fn nodes(&self, typed: &str) -> Vec<Candidate> {
        let typed = typed.strip_prefix('#').unwrap_or(typed);
        let request = History {
            session: SessionRef::Id(self.session.clone()),
            active_only: false,
        };
        let Some(view) = self.ask(request) else {
            return Vec::new();
        };
        let start = Candidate {
            word: "0".into(),
            shown: "0 (the start)".into(),
        };
        view.entries
            .iter()
            .rev()
            .map(node)
            .chain(std::iter::once(start))
            .filter(|c| c.word.starts_with(typed))
            .collect()
    }

    /// The ids of the daemon's sessions starting with `typed`, each shown with its title.
    pub fn sessions(&self, typed: &str) -> Vec<Candidate> {
        let query = omni_proto::SessionQuery {
            limit: Some(omni_proto::MAX_PAGE),
            ..Default::default()
        };
        let Some(page) = self.ask(query) else {
            return Vec::new();
        };
        page.sessions
            .into_iter()
            .filter(|s| s.id.starts_with(typed))
            .map(|s| {
                let short: String = s.id.chars().take(8).collect();
                let title = if s.title.is_empty() { "new" } else { &s.title };
                Candidate {
                    shown: format!("{short}… {}", gist(title)),
                    word: s.id,
                }
            })
            .collect()
    }

    /// One request on a connection of its own; `None` when the daemon cannot answer soon.
    fn ask<C: Call>(&self, request: C) -> Option<C::Reply> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        let mut ctx = Ctx::new(self.socket.clone(), false, true);
        runtime
            .block_on(tokio::time::timeout(PATIENCE, ctx.ask(request)))
            .ok()?
            .ok()
    }
}

/// A node as Tab lists it: `12 user: the first line…`.
fn node(entry: &Entry) -> Candidate {
    Candidate {
        word: entry.id.to_string(),
        shown: format!(
            "{} {}: {}",
            entry.id,
            entry.role.as_str(),
            gist(&entry.text)
        ),
    }
}

/// The first line of `text`, short enough for a list of candidates.
fn gist(text: &str) -> String {
    let first = text.trim().lines().next().unwrap_or_default();
    crate::render::width::cut(first, 40)
}
