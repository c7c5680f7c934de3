//! `-s ID`: which session a command is about, as every command that names one takes it.

use clap::Args;
use omni_proto::SessionRef;

/// Which session a command is about.
#[derive(Debug, Clone, Args)]
pub struct SessionArg {
    /// Session id, a unique prefix of one, or a unique prefix of its title [default: the
    /// most recently used session]
    #[arg(short = 's', long = "session", value_name = "ID")]
    pub session: Option<String>,
}

impl SessionArg {
    /// The session reference to send.
    pub fn to_ref(&self) -> SessionRef {
        match &self.session {
            Some(id) => SessionRef::Id(id.clone()),
            None => SessionRef::Current,
        }
    }
}
