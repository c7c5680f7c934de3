//! Imports too big for one frame arrive in pieces: each [`omni_proto::Request::ImportPart`]
//! is staged here under the client's name for the upload, and the final
//! [`omni_proto::Request::Import`] takes the whole. Staged bytes are held in memory, within
//! a budget; an upload left idle is dropped when the next piece arrives.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use omni_proto::{ErrorKind, ErrorReply};

/// All staged uploads together hold at most this much.
const BUDGET: usize = 1024 * 1024 * 1024;

/// An upload with no piece for this long is dropped.
const IDLE: Duration = Duration::from_secs(600);

/// One upload's bytes so far.
struct Staged {
    bytes: Vec<u8>,
    touched: Instant,
}

/// The uploads in progress, and the lock that makes imports one at a time (so the same
/// content imported twice at once is still imported once).
#[derive(Default)]
pub struct Uploads {
    staged: Mutex<HashMap<String, Staged>>,
    /// Held while an import checks for the same content and writes.
    pub importing: tokio::sync::Mutex<()>,
}

impl Uploads {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Staged>> {
        self.staged.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a piece to upload `name`; the bytes staged so far.
    pub fn stage(&self, name: &str, data: &[u8]) -> Result<u64, ErrorReply> {
        let mut staged = self.lock();
        staged.retain(|_, s| s.touched.elapsed() < IDLE);
        let held: usize = staged.values().map(|s| s.bytes.len()).sum();
        if held + data.len() > BUDGET {
            staged.remove(name);
            return Err(ErrorReply::new(
                ErrorKind::InvalidRequest,
                format!(
                    "imports in progress would hold more than {} MiB; upload {name} was dropped",
                    BUDGET >> 20
                ),
            ));
        }
        let entry = staged.entry(name.to_string()).or_insert_with(|| Staged {
            bytes: Vec::new(),
            touched: Instant::now(),
        });
        entry.bytes.extend_from_slice(data);
        entry.touched = Instant::now();
        Ok(entry.bytes.len() as u64)
    }

    /// Upload `name`'s bytes with `last` after them; the upload is gone afterwards.
    pub fn take(&self, name: &str, last: &[u8]) -> Result<Vec<u8>, ErrorReply> {
        let Some(staged) = self.lock().remove(name) else {
            return Err(ErrorReply::new(
                ErrorKind::NotFound,
                format!("no upload named {name} is staged (it may have been idle too long)"),
            ));
        };
        let mut bytes = staged.bytes;
        bytes.extend_from_slice(last);
        Ok(bytes)
    }
}
