//! How the client that asked for an answer hears back, whichever way the answer comes:
//! a send, a retry, function results, a recovery choice, or a compaction that answers the
//! waiting turn once stored.

use super::Reply;
use crate::session::SessionError;
use crate::session::outcome::Answer;

/// Delivers the outcome of answering a turn to whoever asked, in their reply's type.
pub(super) type Done = Box<dyn FnOnce(Result<Answer, SessionError>) + Send>;

/// A [`Done`] that answers `reply`, mapping the answer with `wrap`.
pub(super) fn done_with<T: Send + 'static>(reply: Reply<T>, wrap: fn(Answer) -> T) -> Done {
    Box::new(move |result| {
        let _ = reply.send(result.map(wrap));
    })
}
