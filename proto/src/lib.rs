//! The wire protocol between `omnid` and its clients.
//!
//! A connection is a local socket carrying *frames*: a 4-byte big-endian length followed by
//! a bincode-2 (serde) payload. The client opens with a [`Hello`]; the daemon answers with a
//! [`HelloReply`]. After that the client sends [`RequestFrame`]s and the daemon answers each
//! with zero or more [`Event`]s and exactly one final [`Response::Reply`] or
//! [`Response::Error`], all tagged with the request's id.
//!
//! bincode is not self-describing: changing the order or shape of any type here changes the
//! bytes on the wire. The golden-bytes tests in `frame.rs` catch that; bump
//! [`PROTOCOL_VERSION`] when they have to change.

mod client;
mod context;
mod demo;
mod error;
mod export;
pub mod frame;
pub mod json;
mod limits;
mod listing;
mod message;
mod model_info;
mod numbers;
mod ops;
mod origin;
mod recovery;
mod replies;
mod requests;
mod response;
mod search;
mod since;
mod socket_path;
mod status;
mod usage;
mod view;

pub use client::{Client, ClientError};
pub use context::{Compacted, Compacting, Compaction, ContextGauge, WindowSource};
pub use demo::{DEMO_TAGS, DemoTag};
pub use error::{ErrorKind, ErrorReply, FrameError};
pub use export::{
    EXPORT_FORMAT, EXPORT_VERSION, ExportFormat, ExportedMove, ExportedMoveKind, ExportedNode,
    ExportedSession, ExportedSessionLine, ImportOutcome, export_schema,
};
pub use limits::{MAX_FRAME_LEN, MAX_PIECED_REPLY_LEN, PROTOCOL_VERSION, REPLY_PIECE_LEN};
pub use listing::{Before, MAX_PAGE, SessionPage, SessionQuery, Shown};
pub use message::{Hello, HelloReply, SessionRef};
pub use model_info::{ModelInfo, Usage};
pub use numbers::thousands;
pub use ops::{MoveOp, PlaceChange};
pub use origin::OriginKind;
pub use recovery::{
    ErrorSummary, PendingCall, Recovered, RecoveryAction, RecoveryPreview, ReplayOutcome,
};
pub use replies::*;
pub use requests::*;
pub use response::{Event, Response, ResponseFrame};
pub use search::{Highlight, SearchHit, SearchQuery, SearchResults};
pub use since::{SinceError, local_day, parse_since, start_of_local_day};
pub use socket_path::{
    SOCKET_ENV, SocketPathError, config_candidates, find_config_file, resolve_socket_path,
    unsafe_socket_dir,
};
pub use status::{
    BreakerState, BreakerStatus, DaemonStatus, DamagedSession, HealthState, ProxyEndpointStatus,
    ProxyStatus, StoreHealth,
};
pub use usage::{Cost, UsageGrouping, UsageReport, UsageRow, UsageTotals};
pub use view::{
    Answer, Branch, BranchList, Entry, HistoryView, MoveOutcome, Part, PartContent, RetryNotice,
    RevertReason, Role, SessionSummary, TreeNode, TreeShape,
};
