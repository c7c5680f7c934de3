//! Replies: the wire's [`Reply`], one variant per reply type, and the typed side, what
//! each request's [`crate::Call::Reply`] is and how it goes into and out of [`Reply`].
//! Both, and the JSON form of a reply, are made from one list (`replies!`); a new reply
//! type is its struct (here in `structs.rs`, or beside its kin) and one line at the end
//! of it.
//!
//! The wire encodes [`Reply`]'s variants by index: append new ones at the end of the
//! list, never reorder.

mod structs;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use structs::*;

use crate::context::Compacted;
use crate::export::ImportOutcome;
use crate::listing::SessionPage;
use crate::recovery::{Recovered, ReplayOutcome};
use crate::search::SearchResults;
use crate::status::DaemonStatus;
use crate::usage::UsageReport;
use crate::view::{Answer, BranchList, HistoryView, MoveOutcome, SessionSummary, TreeShape};

/// A reply type: made into the wire's [`Reply`] by the daemon, taken out of it by the
/// client. A reply of another kind is given back unchanged, so the caller can name it.
pub trait ReplyKind: Sized {
    /// The wire form.
    fn into_reply(self) -> Reply;
    /// This type, if `reply` is of its kind.
    fn from_reply(reply: Reply) -> Result<Self, Box<Reply>>;
}

/// How a reply type travels in its variant: `plain`, or `boxed` (a large one).
macro_rules! carried {
    (plain $kind:ty) => { $kind };
    (boxed $kind:ty) => { Box<$kind> };
    (@wrap plain $value:expr) => { $value };
    (@wrap boxed $value:expr) => { Box::new($value) };
    (@unwrap plain $value:expr) => { $value };
    (@unwrap boxed $value:expr) => { *$value };
}

/// The wire's `Reply` (after `Pong`, in the list's order), each reply type's `ReplyKind`,
/// and a reply's JSON.
macro_rules! replies {
    ($($(#[$doc:meta])* $variant:ident: $how:ident $kind:ty,)*) => {
        /// The successful outcome of a request, as it goes on the wire: one variant per
        /// reply type.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
        pub enum Reply {
            /// Answer to [`crate::Ping`].
            Pong,
            $($(#[$doc])* $variant(carried!($how $kind)),)*
        }

        $(impl ReplyKind for $kind {
            fn into_reply(self) -> Reply {
                Reply::$variant(carried!(@wrap $how self))
            }
            fn from_reply(reply: Reply) -> Result<Self, Box<Reply>> {
                match reply {
                    Reply::$variant(value) => Ok(carried!(@unwrap $how value)),
                    other => Err(Box::new(other)),
                }
            }
        })*

        impl Reply {
            /// The JSON object `omnictl --json` prints for it and the HTTP API sends:
            /// the reply type's own JSON.
            pub fn json(&self) -> Value {
                match self {
                    Reply::Pong => json!({"pong": true}),
                    $(Reply::$variant(value) => json!(value),)*
                }
            }
        }
    };
}

replies! {
    /// A session was created.
    SessionCreated: plain SessionCreated,
    /// The answer was stored durably.
    Answered: plain Answer,
    /// A transcript.
    History: plain HistoryView,
    /// The head moved.
    Moved: plain MoveOutcome,
    /// The leaves of a session.
    Branches: plain BranchList,
    /// All sessions, newest first.
    Sessions: plain SessionPage,
    /// The daemon's status.
    Status: boxed DaemonStatus,
    /// A session was resumed.
    Resumed: plain Resumed,
    /// A tool result was stored; these calls still wait for theirs.
    ToolResultStored: plain ToolResultStored,
    /// A recovery move was made.
    Recovered: plain Recovered,
    /// One session.
    Session: plain SessionSummary,
    /// Recorded errors.
    Errors: plain ErrorList,
    /// A diagnostic bundle was sent (as [`crate::Event::BundleData`] pieces).
    Bundle: plain Bundle,
    /// The log file's path.
    LogPath: plain LogFile,
    /// A replay's outcome.
    Replayed: plain ReplayOutcome,
    /// An answer was cancelled.
    Cancelled: plain Cancelled,
    /// Tokens and cost, summed as asked.
    Usage: plain UsageReport,
    /// An export was sent (as [`crate::Event::ExportData`] pieces).
    Exported: plain Exported,
    /// A piece of an import was staged.
    ImportStaged: plain ImportStaged,
    /// A session was imported (or was there already).
    Imported: plain ImportOutcome,
    /// Search hits, best first.
    Search: plain SearchResults,
    /// A session was purged.
    Purged: plain Purged,
    /// A compaction was stored.
    Compacted: boxed Compacted,
    /// The web app's one-time login link.
    WebLink: plain LoginLink,
    /// The shape of a session's tree.
    Tree: plain TreeShape,
    /// The final response came in pieces (see [`Pieced`]).
    Pieced: plain Pieced,
}

/// [`crate::Ping`]'s reply: [`Reply::Pong`].
impl ReplyKind for () {
    fn into_reply(self) -> Reply {
        Reply::Pong
    }
    fn from_reply(reply: Reply) -> Result<Self, Box<Reply>> {
        match reply {
            Reply::Pong => Ok(()),
            other => Err(Box::new(other)),
        }
    }
}

impl ReplyKind for Detached {
    fn into_reply(self) -> Reply {
        match self {}
    }
    fn from_reply(reply: Reply) -> Result<Self, Box<Reply>> {
        Err(Box::new(reply))
    }
}

impl ReplyKind for ToolResultOutcome {
    fn into_reply(self) -> Reply {
        match self {
            Self::Stored(stored) => stored.into_reply(),
            Self::Answered(answer) => (*answer).into_reply(),
        }
    }
    fn from_reply(reply: Reply) -> Result<Self, Box<Reply>> {
        match reply {
            Reply::ToolResultStored(stored) => Ok(Self::Stored(stored)),
            Reply::Answered(answer) => Ok(Self::Answered(Box::new(answer))),
            other => Err(Box::new(other)),
        }
    }
}

impl ReplyKind for RecoverOutcome {
    fn into_reply(self) -> Reply {
        match self {
            Self::Recovered(recovered) => recovered.into_reply(),
            Self::Answered(answer) => (*answer).into_reply(),
        }
    }
    fn from_reply(reply: Reply) -> Result<Self, Box<Reply>> {
        match reply {
            Reply::Recovered(recovered) => Ok(Self::Recovered(recovered)),
            Reply::Answered(answer) => Ok(Self::Answered(Box::new(answer))),
            other => Err(Box::new(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_type_comes_back_out_of_its_variant_and_no_other() {
        let created = SessionCreated {
            session: "s".into(),
        };
        let wire = created.clone().into_reply();
        assert_eq!(wire, Reply::SessionCreated(created.clone()));
        assert_eq!(SessionCreated::from_reply(wire), Ok(created));
        assert_eq!(<()>::from_reply(Reply::Pong), Ok(()));
        let other = SessionCreated::from_reply(Reply::Pong).expect_err("a Pong is not one");
        assert_eq!(
            *other,
            Reply::Pong,
            "the other reply is given back as it was"
        );
        assert!(
            Detached::from_reply(Reply::Pong).is_err(),
            "following never ends in one"
        );
        let stored = ToolResultStored {
            session: "s".into(),
            calls: Vec::new(),
        };
        let outcome = ToolResultOutcome::from_reply(stored.clone().into_reply());
        assert_eq!(outcome, Ok(ToolResultOutcome::Stored(stored)));
    }
}
