//! The shared store's change feed: what other instances did, in the order the database
//! made it final. Every change a shared store commits adds a line to the feed in its own
//! transaction (so the feed never misses a change and never tells of one that was not
//! kept), and so does every batch of live events (an answer streaming in) an instance
//! publishes. Each instance follows the feed: woken by the database's notifications, and
//! reading it again every second anyway, so a notification missed is only late. The
//! embedded store is one instance's alone: it has no feed.

use uuid::Uuid;

/// One line of the feed: what another instance did to a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedItem {
    /// A change was committed (a node, a move, the record).
    Committed {
        /// The session.
        session: Uuid,
    },
    /// The session was purged.
    Purged {
        /// The session.
        session: Uuid,
    },
    /// Live events of a change in flight, as the instance making it published them.
    Live {
        /// The session.
        session: Uuid,
        /// The events, encoded by whoever published them.
        body: Vec<u8>,
    },
}

/// Who hears the feed: called with each batch of lines, in order, and the mark the feed
/// was read up to (every second at least, lines or none).
pub type FeedReader = Box<dyn Fn(Vec<FeedItem>, FeedMark) + Send + Sync>;

/// Where the feed was read up to: every line before it was heard (or pruned). The search
/// index keeps it with its commits, so a restart catches up from the lines after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct FeedMark(pub(super) i64);

impl std::fmt::Display for FeedMark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "feed:{}", self.0)
    }
}

impl std::str::FromStr for FeedMark {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, ()> {
        let number = text.strip_prefix("feed:").ok_or(())?;
        number.parse().map(FeedMark).map_err(|_| ())
    }
}

/// Where this instance's live events go to the other instances: cheap to clone; a send
/// never waits (the events go out in batches, at most ~50 ms apart).
#[derive(Clone)]
pub struct LiveOutlet(pub(super) tokio::sync::mpsc::UnboundedSender<(Uuid, Vec<u8>)>);

impl LiveOutlet {
    /// Publishes one encoded event of a session.
    pub fn send(&self, session: Uuid, body: Vec<u8>) {
        let _ = self.0.send((session, body));
    }
}
