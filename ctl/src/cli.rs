//! `omnictl`'s command line (clap). Kept apart so completions and man pages can be
//! generated from the same definitions.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::commands::{self, Ctx};
use crate::error::CtlError;
use crate::session_arg::SessionArg;

/// omnictl: talk to omnid — send prompts, undo, rewind, branch.
#[derive(Debug, Parser)]
#[command(name = "omnictl", version, about, long_about = None)]
pub struct Cli {
    /// Where omnid is and how to talk to it.
    #[command(flatten)]
    pub globals: Globals,

    /// What to do
    #[command(subcommand)]
    pub command: Command,
}

/// The options every command takes.
#[derive(Debug, clap::Args)]
pub struct Globals {
    /// omnid's socket [default: $OMNI_SOCKET, else the configuration file's `socket`, else
    /// $XDG_RUNTIME_DIR/omni/omnid.sock]
    #[arg(long, global = true, value_name = "PATH")]
    pub socket: Option<PathBuf>,

    /// omnid's configuration file, read for its `socket` [default:
    /// $XDG_CONFIG_HOME/omni/config.toml, else /etc/omni/config.toml, as omnid finds it]
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Print machine-readable JSON instead of text
    #[arg(long, global = true)]
    pub json: bool,

    /// Fail at once if omnid is not reachable (by default omnictl retries after 1, 2, 4 s)
    #[arg(long, global = true)]
    pub no_wait: bool,
}

/// The subcommands: those that talk to omnid (`commands/`), then the chat and those that
/// need no daemon.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// A command that talks to omnid.
    #[command(flatten)]
    Asks(commands::Command),
    /// Chat: prompts, answers and every command in one place (/help lists them); piped,
    /// each line is a prompt or a /command
    // Listed after `search`, where it always stood: clap numbers the flattened commands
    // before it, and 10 falls between search and undo (a test holds the place).
    #[command(display_order = 10)]
    Chat {
        #[command(flatten)]
        session: SessionArg,
        /// Start a new session
        #[arg(long, conflicts_with = "session")]
        new: bool,
        /// Ask this model from now on (MODEL or PROVIDER/MODEL), as /model does
        #[arg(long, value_name = "REF")]
        model: Option<String>,
        /// Print answers as they are (no markdown rendering)
        #[arg(long)]
        raw: bool,
        /// Print long output directly instead of through $PAGER
        #[arg(long)]
        no_pager: bool,
    },
    /// Print shell completions for omnictl
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print omnictl's man page (roff)
    Man,
    /// Run a short real session against a private demo daemon (no API key, no network)
    Demo {
        /// Leave the demo daemon running afterwards and print how to reach it
        #[arg(long)]
        keep: bool,
        /// Also serve the web app on a free loopback port and print its login link
        /// (implies --keep)
        #[arg(long)]
        web: bool,
    },
}

impl Globals {
    /// The connection to the daemon they name (made on first use).
    pub fn ctx(&self) -> Result<Ctx, CtlError> {
        Ctx::named(
            self.socket.clone(),
            self.config.as_deref(),
            self.json,
            self.no_wait,
        )
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn help_lists_chat_after_search_as_it_always_did() {
        let help = Cli::command().render_help().to_string();
        let place = |name: &str| help.find(&format!("\n  {name} ")).expect(name);
        assert!(
            place("search") < place("chat") && place("chat") < place("undo"),
            "{help}"
        );
        assert!(place("branches") < place("checkout"), "{help}");
    }

    /// clap checks the definitions (clashing ids, bad defaults) only when asked to.
    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
