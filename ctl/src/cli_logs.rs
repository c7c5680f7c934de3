//! The command line of `omnictl logs`: the diagnostic log's path, its records, and the
//! bundle that holds a failure whole. Nested in [`crate::cli::Command`].

use std::path::PathBuf;

use clap::Subcommand;

use crate::cli_sessions::SessionArg;

/// `omnictl logs ...`.
#[derive(Debug, Subcommand)]
pub enum LogsCommand {
    /// Print the path of api_errors.log
    Path,
    /// List the recorded errors (id, time, session, class, message), newest first
    List {
        /// Only this session's [default: all sessions]
        #[arg(short = 's', long = "session", value_name = "ID")]
        session: Option<String>,
    },
    /// Write one self-contained bundle (log entries, records, transcript, configuration)
    Export {
        #[command(flatten)]
        session: SessionArg,
        /// Only this error (and its session's transcript)
        #[arg(long, value_name = "ERROR_ID")]
        error: Option<String>,
        /// Where to write it ("-" for stdout) [default: omni-bundle-<session>-<time>.json
        /// in the current directory]
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Replace FILE if it exists
        #[arg(long)]
        force: bool,
    },
}
