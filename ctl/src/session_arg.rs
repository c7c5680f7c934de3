//! `-s ID`: which session a command is about, as every command that names one takes it.

use clap::Args;

/// Which session a command is about.
#[derive(Debug, Clone, Args)]
pub struct SessionArg {
    /// Session id, a unique prefix of one, or a unique prefix of its title [default: the
    /// most recently used session]
    #[arg(short = 's', long = "session", value_name = "ID")]
    pub session: Option<String>,
}
