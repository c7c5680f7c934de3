//! The command line of the commands that name, list and keep sessions: `sessions`,
//! `rename`, `archive`, `unarchive`, `delete`, `restore`, `purge`. Flattened into
//! [`crate::cli::Command`].

use clap::{Args, Subcommand};

/// Which session a command is about.
#[derive(Debug, Clone, Args)]
pub struct SessionArg {
    /// Session id, a unique prefix of one, or a unique prefix of its title [default: the
    /// most recently used session]
    #[arg(short = 's', long = "session", value_name = "ID")]
    pub session: Option<String>,
}

/// What `omnictl sessions` shows.
#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// At most this many sessions (newest first)
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: u32,
    /// Only sessions last active before this: a time as `--since` takes it, or the
    /// place a previous page printed as its next page (`MS.ID`)
    #[arg(long, value_name = "WHEN")]
    pub before: Option<String>,
    /// Only sessions active since this (2026-11-01, today, yesterday, 7d, 12h, ms)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only sessions of this origin: own (made with omnictl or HTTP), proxy, import
    #[arg(long, value_name = "KIND")]
    pub origin: Option<String>,
    /// Only sessions that ask or were answered by a model whose name contains this
    #[arg(long, value_name = "TEXT")]
    pub model: Option<String>,
    /// Include archived sessions
    #[arg(long, conflicts_with = "trash")]
    pub archived: bool,
    /// List the trash instead (sessions `delete` moved there)
    #[arg(long)]
    pub trash: bool,
}

impl Default for ListArgs {
    /// The first page of the listed sessions (chat's `/sessions`).
    fn default() -> Self {
        Self {
            limit: 50,
            before: None,
            since: None,
            origin: None,
            model: None,
            archived: false,
            trash: false,
        }
    }
}

/// The commands that name and keep sessions.
#[derive(Debug, Subcommand)]
pub enum KeepCommand {
    /// Name a session (its first prompt no longer sets its title)
    Rename {
        #[command(flatten)]
        session: SessionArg,
        /// The title (several words are joined with spaces)
        #[arg(required = true, value_name = "TITLE")]
        title: Vec<String>,
    },
    /// Hide a session from `sessions` (still found with `sessions --archived`)
    Archive {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Show an archived session in `sessions` again
    Unarchive {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Move a session to the trash (restorable for trash.keep_days, then purged)
    Delete {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Take a session out of the trash
    Restore {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Erase a session for good (asks to confirm): from the store, the proxy's chains and
    /// the diagnostic records; after omnid's next start no byte of it is left on disk
    Purge {
        /// The session to erase (required: purge never means the current one by default)
        #[arg(short = 's', long = "session", value_name = "ID", required = true)]
        session: String,
        /// Do not ask
        #[arg(long)]
        yes: bool,
    },
}
