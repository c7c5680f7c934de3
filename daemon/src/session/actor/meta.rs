//! Changes to what a session is called and where it is kept, not to its conversation:
//! its title (`rename`), the archive and the trash. They leave the session's last
//! activity as it was, and do not make it the current session.

use super::{Actor, ActorHandle, Command, Reply, Run, Write};
use crate::session::SessionError;
use crate::time::now_ms;

/// The longest title a user may give, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

/// A change to a session's name or place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetaChange {
    /// Names the session; the first prompt no longer sets its title.
    Rename(String),
    /// Hides it from listings.
    Archive,
    /// Shows it in listings again.
    Unarchive,
    /// Moves it to the trash.
    Delete,
    /// Takes it out of the trash.
    Restore,
}

/// A title as given, checked: one line, not empty, not too long.
pub fn checked_title(title: &str) -> Result<String, SessionError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(SessionError::invalid("the title is empty"));
    }
    if title.contains(['\n', '\r']) {
        return Err(SessionError::invalid("a title is one line"));
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(SessionError::invalid(format!(
            "a title has at most {MAX_TITLE_CHARS} characters"
        )));
    }
    Ok(title.to_string())
}

impl Actor {
    /// Applies a change of name or place, durably.
    pub(super) async fn change_meta(&mut self, change: MetaChange) -> Result<(), SessionError> {
        self.refuse_if_busy()?;
        let now = now_ms();
        let record = &self.record;
        let refused = match &change {
            MetaChange::Archive if record.archived_at_ms.is_some() => Some("is archived already"),
            MetaChange::Unarchive if record.archived_at_ms.is_none() => Some("is not archived"),
            MetaChange::Delete if record.deleted_at_ms.is_some() => Some("is in the trash already"),
            MetaChange::Restore if record.deleted_at_ms.is_none() => Some("is not in the trash"),
            _ => None,
        };
        if let Some(why) = refused {
            return Err(SessionError::wrong_state(format!(
                "session {} {why}",
                record.id
            )));
        }
        let how = Write {
            recorded: None,
            durable: true,
            activity: false,
        };
        let update = |record: &mut crate::model::SessionRecord| match change {
            MetaChange::Rename(title) => {
                record.title = title;
                record.title_set = true;
            }
            MetaChange::Archive => record.archived_at_ms = Some(now),
            MetaChange::Unarchive => record.archived_at_ms = None,
            MetaChange::Delete => record.deleted_at_ms = Some(now),
            MetaChange::Restore => record.deleted_at_ms = None,
        };
        self.write(None, None, update, how)
            .await
            .map_err(|e| e.error("the change"))
    }
}

/// [`ActorHandle::change_meta`]'s command.
pub(super) struct MetaCommand {
    change: MetaChange,
    reply: Reply<()>,
}

impl ActorHandle {
    /// Renames the session, or moves it to or from the archive or the trash.
    pub async fn change_meta(&self, change: MetaChange) -> Result<(), SessionError> {
        self.call(|reply| Command::Meta(MetaCommand { change, reply }))
            .await
    }
}

impl Run for MetaCommand {
    async fn run(self, actor: &mut Actor) {
        let result = actor.change_meta(self.change).await;
        actor.announce_change(&result);
        let _ = self.reply.send(result);
    }
}
