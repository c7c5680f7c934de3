//! `omnid`'s command line: a few actions and switches of its own, then one flag per setting
//! (declared in [`super::settings`]).

use std::path::PathBuf;

use clap::Parser;

use super::settings::SettingFlags;

/// `omnid`: holds LLM chat sessions so that nothing is ever lost.
#[derive(Debug, Clone, Default, Parser)]
#[command(name = "omnid", version, about, long_about = None)]
pub struct Args {
    /// Configuration file [default: $XDG_CONFIG_HOME/omni/config.toml, else /etc/omni/config.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Print the configuration in effect (secrets redacted) and exit
    #[arg(long)]
    pub print_config: bool,

    /// Print omnid's man page (roff) and exit
    #[arg(long)]
    pub print_man: bool,

    /// Answer from the bundled demo model on 127.0.0.1 (no API key, no network).
    /// Without --data-dir, demo sessions are kept apart from real ones (in .../omni/demo).
    #[arg(long)]
    pub demo: bool,

    /// With --demo: a private directory holding the socket, data and log directories,
    /// removed when omnid exits (as `omnictl demo` starts it)
    #[arg(long, value_name = "DIR", requires = "demo")]
    pub demo_scratch_dir: Option<PathBuf>,

    /// The settings' flags.
    #[command(flatten)]
    pub settings: SettingFlags,

    /// Something to do instead of running.
    #[command(subcommand)]
    pub action: Option<Action>,
}

/// What omnid does instead of running.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum Action {
    /// Tools for the store.
    #[command(subcommand)]
    Store(StoreAction),
}

/// `omnid store ...`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum StoreAction {
    /// Copy every session (nodes, moves, origins, imports, recorded conversations) from one
    /// store into another, each a data directory or a postgres:// URL, reading each back.
    /// Sessions already there are left alone: running it twice adds nothing.
    Copy(CopyArgs),
}

/// `omnid store copy`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct CopyArgs {
    /// The store to copy: a data directory, or postgres://USER@HOST:PORT/DATABASE
    #[arg(long, value_name = "DIR|URL")]
    pub from: String,
    /// The store to copy into (a data directory is created if it does not exist)
    #[arg(long, value_name = "DIR|URL")]
    pub to: String,
    /// The source database's password, in a file only its owner may read
    #[arg(long, value_name = "FILE")]
    pub from_password_file: Option<PathBuf>,
    /// The destination database's password, in a file only its owner may read
    #[arg(long, value_name = "FILE")]
    pub to_password_file: Option<PathBuf>,
}
