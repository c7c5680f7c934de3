//! `omnictl`'s command line (clap). Kept apart so completions and man pages can be
//! generated from the same definitions.

use std::path::PathBuf;

use clap::{ArgGroup, Parser, Subcommand};

pub use crate::cli_logs::LogsCommand;
pub use crate::cli_sessions::SessionArg;
use crate::cli_sessions::{KeepCommand, ListArgs};

/// omnictl: talk to omnid — send prompts, undo, rewind, branch.
#[derive(Debug, Parser)]
#[command(name = "omnictl", version, about, long_about = None)]
pub struct Cli {
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

    /// What to do
    #[command(subcommand)]
    pub command: Command,
}

/// Whose nodes a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchRole {
    /// The user's prompts.
    User,
    /// The model's answers.
    Model,
    /// Function results.
    Tool,
}

/// How `omnictl usage` groups its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UsageBy {
    /// One row per session
    Session,
    /// One row per model (PROVIDER/MODEL)
    Model,
    /// One row per local calendar day
    Day,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a session and make it the current one; prints its id
    New {
        /// A JSON array of function declarations (name, description, parameters) the
        /// model may call
        #[arg(long, value_name = "FILE")]
        tools: Option<PathBuf>,
        /// The model it asks: MODEL (of omnid's default provider) or PROVIDER/MODEL
        /// [default: omnid's --model]
        #[arg(long, value_name = "REF")]
        model: Option<String>,
        /// Models asked in turn, with the same context, when its own cannot answer (quota
        /// exhausted, circuit breaker open, overloaded) [default: omnid's --fallback]
        #[arg(long, value_name = "REF,...", value_delimiter = ',')]
        fallback: Vec<String>,
        /// A system instruction sent with every request of the session
        #[arg(long, value_name = "TEXT")]
        system: Option<String>,
    },
    /// Show the model a session asks and its fallbacks, or switch it (from the next send on)
    Model {
        #[command(flatten)]
        session: SessionArg,
        /// The model to ask from now on: MODEL or PROVIDER/MODEL
        #[arg(value_name = "REF")]
        model: Option<String>,
    },
    /// Send a prompt and stream the answer ("-" reads the prompt from stdin)
    Send {
        #[command(flatten)]
        session: SessionArg,
        /// The prompt (several words are joined with spaces), or "-" for stdin
        #[arg(required = true, value_name = "TEXT")]
        text: Vec<String>,
        /// Send it in place of a prompt a failed or cancelled send left pending (that one
        /// stays in the tree, off the path); without it, both are sent
        #[arg(long)]
        replace: bool,
    },
    /// Answer the prompt a failed send left pending again, as it is (nothing new is stored)
    Retry {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Show the transcript; reverted turns are crossed out with [ REVERTED ]
    History {
        #[command(flatten)]
        session: SessionArg,
        /// Only what the model will see next (the path to the head)
        #[arg(long)]
        active: bool,
        /// Also show the model's thought summaries
        #[arg(long)]
        thoughts: bool,
        /// Draw the session as a tree: branches under their fork, why each node is out
        #[arg(long, conflicts_with_all = ["active", "thoughts"])]
        tree: bool,
        /// Show every entry whole (a very long one is otherwise cut, with a note)
        #[arg(long)]
        full: bool,
        /// Print long output directly instead of through $PAGER
        #[arg(long)]
        no_pager: bool,
        /// Show only the nodes around node N (a search hit): its turns before and after
        #[arg(long, value_name = "N", conflicts_with = "tree")]
        around: Option<u64>,
        /// With --around: how many nodes before and after it
        #[arg(long, value_name = "N", default_value_t = 3, requires = "around")]
        context: u64,
    },
    /// Find any sentence of any session, every branch included: ranked hits with the
    /// session's title, the node (`checkout N`, `history --around N`), a snippet with the
    /// matches in bold, and whether the node is reverted
    Search {
        /// The words; every word must match ("a phrase", a OR b, -word work too)
        #[arg(required = true, value_name = "QUERY")]
        query: Vec<String>,
        /// Only this session's nodes (an id or a unique prefix)
        #[arg(short = 's', long = "session", value_name = "ID")]
        session: Option<String>,
        /// Only nodes of this role
        #[arg(long, value_enum)]
        role: Option<SearchRole>,
        /// Only nodes made since: a date, today, yesterday, an age (7d, 3h) or ms since the epoch
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
        /// At most this many hits (1 to 1000)
        #[arg(long, value_name = "N", default_value_t = 20)]
        limit: u32,
        /// Also search archived sessions
        #[arg(long)]
        archived: bool,
    },
    /// Chat: prompts, answers and every command in one place (/help lists them); piped,
    /// each line is a prompt or a /command
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
    /// Drop the answer to the latest prompt, keep the prompt
    Undo {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Take the last undo or back move back
    Redo {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Drop the latest whole round: prompt, answer and any tool calls
    Back {
        #[command(flatten)]
        session: SessionArg,
    },
    /// List every branch (leaf) with its last line and length
    Branches {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Continue from node N (0 = the start of the conversation)
    Checkout {
        #[command(flatten)]
        session: SessionArg,
        /// The node to continue from, as listings print it (`12` or `#12`)
        #[arg(value_name = "N", value_parser = node_number)]
        node: u64,
    },
    /// List sessions, last active first: title, origin, model, turns, last activity
    Sessions(ListArgs),
    /// Name, archive, delete and restore sessions
    #[command(flatten)]
    Keep(KeepCommand),
    /// Show the daemon's version, uptime, socket, store, sessions and circuit breakers
    Status,
    /// Print a one-time link that logs a browser into the web app (omnid --web-listen)
    Web {
        /// Also open it in the default browser
        #[arg(long)]
        open: bool,
    },
    /// Sum stored answers' tokens (input, cached, output, thinking) and their cost, per
    /// session, model or day (costs come from the `[prices."MODEL"]` tables of omnid's
    /// configuration)
    Usage {
        /// Only answers from this time on: a date (2026-11-01), a date and time, `today`,
        /// `yesterday`, or an age (30m, 24h, 7d, 2w)
        #[arg(long, value_name = "WHEN")]
        since: Option<String>,
        /// One row per session, model or day
        #[arg(long, value_enum, default_value = "session")]
        by: UsageBy,
        /// Only this session (an id, a unique prefix) [default: every session]
        #[arg(short = 's', long = "session", value_name = "ID")]
        session: Option<String>,
    },
    /// Lift a session's suspension after repeated failed sends (the history is untouched)
    Resume {
        /// The session to resume [default: -s, else the most recently used session]
        #[arg(value_name = "ID")]
        id: Option<String>,
        #[command(flatten)]
        session: SessionArg,
    },
    /// Submit the result of a function call the model made ("-" reads JSON from stdin);
    /// with the last one, the model's continuation streams here
    ToolResult {
        #[command(flatten)]
        session: SessionArg,
        /// The call's id, to pick one of several calls of the same function
        #[arg(long = "id", value_name = "CALL_ID")]
        call_id: Option<String>,
        /// The function's name
        #[arg(value_name = "NAME")]
        name: String,
        /// The result as JSON (an object such as '{"output": 21}', or any value)
        #[arg(value_name = "JSON")]
        result: String,
    },
    /// Summarise the context up to its last rounds into one summary node: the model sees
    /// the summary from then on, the covered nodes stay in the tree (history, search,
    /// exports), and `omnictl undo` right after returns to the full context
    Compact {
        #[command(flatten)]
        session: SessionArg,
        /// Rounds (a prompt, its answer and tool calls) kept whole after the summary
        /// [default: 2]
        #[arg(long, value_name = "N")]
        keep: Option<u32>,
        /// What the summary should keep in mind (added to Omni's own instructions)
        #[arg(long, value_name = "TEXT")]
        instructions: Option<String>,
    },
    /// Choose how a session that needs recovery goes on (without a flag: a menu)
    #[command(group(ArgGroup::new("action").args(["compact", "deep", "clear", "ignore", "retry"])))]
    Recover {
        #[command(flatten)]
        session: SessionArg,
        /// Compact: summarise the older turns (they stay in the tree), then send again
        #[arg(long)]
        compact: bool,
        /// Deep rollback: drop the last prompt and its whole tool chain from the context
        #[arg(long)]
        deep: bool,
        /// Clear turn: drop only the last node from the context
        #[arg(long)]
        clear: bool,
        /// Keep the history as it is and clear the state
        #[arg(long)]
        ignore: bool,
        /// Send the same context again
        #[arg(long)]
        retry: bool,
    },
    /// Diagnostic logs: where they are, what they hold, and a bundle for a bug report
    Logs {
        /// What to do with them
        #[command(subcommand)]
        command: LogsCommand,
    },
    /// Send a recorded failing request again (touching no session) and say if it still fails
    Replay {
        /// The error's id (or a unique prefix), from `omnictl logs list`
        #[arg(value_name = "ERROR_ID")]
        error: String,
    },
    /// Cancel the session's answer in flight; the partial answer is kept out of the context
    Cancel {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Follow a session live (another client's answers, retries, moves) until Ctrl-C
    Attach {
        #[command(flatten)]
        session: SessionArg,
    },
    /// Write a session as Markdown (the path to the head), JSON (the whole tree) or JSON
    /// lines, to stdout or a file
    Export {
        #[command(flatten)]
        session: SessionArg,
        /// md (a readable document), json (every node, move and the head; see
        /// docs/export.schema.json) or jsonl (the session, then one node per line)
        #[arg(long, value_name = "FORMAT", default_value = "md", value_parser = export_format)]
        format: omni_proto::ExportFormat,
        /// Write to FILE (with your permissions) instead of stdout
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Replace FILE if it exists
        #[arg(long)]
        force: bool,
        /// Markdown: the turns out of the context too, struck through
        #[arg(long)]
        all: bool,
    },
    /// Import sessions from files or folders: Omni's own exports, or other tools' session
    /// files; the same content imported twice is added once
    Import {
        /// Files or folders (walked for .json and .jsonl files)
        #[arg(value_name = "PATH", required = true)]
        paths: Vec<PathBuf>,
        /// The files' format [default: recognised from each file]
        #[arg(long, value_enum, value_name = "FORMAT")]
        from: Option<crate::import::Source>,
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

/// A node number as every listing prints it: `12` or `#12`.
fn node_number(text: &str) -> Result<u64, String> {
    let digits = text.trim().strip_prefix('#').unwrap_or(text.trim());
    digits
        .parse()
        .map_err(|_| format!("'{text}' is not a node number (such as 12 or #12)"))
}

/// `export --format`'s parser.
fn export_format(name: &str) -> Result<omni_proto::ExportFormat, String> {
    omni_proto::ExportFormat::parse(name).ok_or_else(|| {
        let names: Vec<&str> = omni_proto::ExportFormat::ALL
            .iter()
            .map(|f| f.name())
            .collect();
        format!("unknown format '{name}'; one of {}", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::{Cli, node_number};

    #[test]
    fn node_numbers_are_read_as_listings_print_them() {
        assert_eq!(node_number("12"), Ok(12));
        assert_eq!(node_number("#12"), Ok(12));
        assert!(node_number("#").is_err());
        assert!(node_number("twelve").is_err());
    }

    /// clap checks the definitions (clashing ids, bad defaults) only when asked to.
    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
