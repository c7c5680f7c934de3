//! A model request's body, built once and shared: every attempt of a send, and the HTTP
//! client under it, hold the same bytes, so a retry resends exactly what was sent and a
//! long context is never copied again to be sent.
//!
//! A body is written in pieces of at most [`PIECE`] bytes. One contiguous block the size
//! of a long context (a megabyte at 10,000 turns) would be mapped afresh, page-faulted in
//! and unmapped at every send; pieces this small come from the allocator's free lists,
//! whose pages are already there. The pieces go out as one body of a known length.

use std::borrow::Cow;
use std::convert::Infallible;

use bytes::Bytes;

/// The most bytes one piece of a body holds.
const PIECE: usize = 64 * 1024;

/// A request's JSON body, cheap to clone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestBody {
    pieces: Vec<Bytes>,
}

impl From<String> for RequestBody {
    fn from(text: String) -> Self {
        Self {
            pieces: vec![Bytes::from(text)],
        }
    }
}

impl RequestBody {
    /// The body as text, for diagnostics and tests (it was written as text, so it reads
    /// back whole).
    pub fn text(&self) -> Cow<'_, str> {
        match self.pieces.as_slice() {
            [] => Cow::Borrowed(""),
            [one] => String::from_utf8_lossy(one),
            pieces => {
                let joined = pieces.concat();
                Cow::Owned(
                    String::from_utf8(joined)
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
                )
            }
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.pieces.iter().map(Bytes::len).sum()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.pieces.iter().all(Bytes::is_empty)
    }

    /// The body for the HTTP client, sharing these bytes (its length is sent apart, as
    /// `Content-Length`).
    pub fn to_http(&self) -> reqwest::Body {
        match self.pieces.as_slice() {
            [one] => reqwest::Body::from(one.clone()),
            _ => {
                let pieces = self.pieces.clone().into_iter().map(Ok::<_, Infallible>);
                reqwest::Body::wrap_stream(futures_util::stream::iter(pieces))
            }
        }
    }
}

/// Writes a body piece by piece, as a `String` would be written.
#[derive(Default)]
pub struct BodyWriter {
    done: Vec<Bytes>,
    open: Vec<u8>,
    written: usize,
    expected: usize,
}

impl BodyWriter {
    /// A writer for a body of about `expected` bytes.
    pub fn with_capacity(expected: usize) -> Self {
        Self {
            expected,
            ..Self::default()
        }
    }

    /// Appends `text`.
    pub fn push_str(&mut self, text: &str) {
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            if self.open.capacity() == 0 {
                let left = self.expected.saturating_sub(self.written);
                self.open
                    .reserve_exact(left.clamp(rest.len().min(PIECE), PIECE));
            }
            let room = PIECE - self.open.len();
            let (now, later) = rest.split_at(room.min(rest.len()));
            self.open.extend_from_slice(now);
            self.written += now.len();
            rest = later;
            if self.open.len() == PIECE {
                self.done.push(Bytes::from(std::mem::take(&mut self.open)));
            }
        }
    }

    /// Appends one character.
    pub fn push(&mut self, c: char) {
        self.push_str(c.encode_utf8(&mut [0; 4]));
    }

    /// The body written.
    pub fn finish(mut self) -> RequestBody {
        if !self.open.is_empty() {
            self.done.push(Bytes::from(self.open));
        }
        RequestBody { pieces: self.done }
    }
}

#[cfg(test)]
mod tests;
