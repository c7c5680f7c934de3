//! One file per subcommand that talks to omnid: its arguments and the code that runs
//! them; this module lists them (`commands!`), which makes the subcommand enum and its
//! dispatch. `ctx.rs` is the connection they share.

// Every file here is a module (a new command needs no line here).
automod::dir!(pub "src/commands");

pub use ctx::Ctx;

use crate::error::CtlError;
use keep::KeepCommand;
use sessions::ListArgs;

/// A command that talks to omnid: its arguments (clap), run against the daemon.
pub trait Run {
    /// Runs it.
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError>;
}

/// The commands that talk to omnid, each `Variant(its arguments)` (the type runs it), in
/// the order `--help` lists them: the enum and its dispatch.
macro_rules! commands {
    ($($(#[$meta:meta])* $variant:ident($args:ty),)*) => {
        /// The subcommands that talk to omnid.
        #[derive(Debug, clap::Subcommand)]
        pub enum Command {
            $($(#[$meta])* $variant($args),)*
        }

        impl Command {
            /// Runs the command.
            pub async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
                match self {
                    $(Self::$variant(args) => args.run(ctx).await,)*
                }
            }
        }
    };
}

commands! {
    /// Create a session and make it the current one; prints its id
    New(new::Args),
    /// Show the model a session asks and its fallbacks, or switch it (from the next send on)
    Model(model::Args),
    /// Send a prompt and stream the answer ("-" reads the prompt from stdin)
    Send(send::Args),
    /// Answer the prompt a failed send left pending again, as it is (nothing new is stored)
    Retry(send::RetryArgs),
    /// Show the transcript; reverted turns are crossed out with [ REVERTED ]
    History(history::Args),
    /// Find any sentence of any session, every branch included: ranked hits with the
    /// session's title, the node (`checkout N`, `history --around N`), a snippet with the
    /// matches in bold, and whether the node is reverted
    Search(search::Args),
    /// Drop the answer to the latest prompt, keep the prompt
    Undo(moves::Undo),
    /// Take the last undo or back move back
    Redo(moves::Redo),
    /// Drop the latest whole round: prompt, answer and any tool calls
    Back(moves::Back),
    /// List every branch (leaf) with its last line and length
    Branches(branches::Args),
    /// Continue from node N (0 = the start of the conversation)
    Checkout(moves::Checkout),
    /// List sessions, last active first: title, origin, model, turns, last activity
    Sessions(ListArgs),
    /// Name, archive, delete and restore sessions
    #[command(flatten)]
    Keep(KeepCommand),
    /// Show the daemon's version, uptime, socket, store, sessions and circuit breakers
    Status(status::Args),
    /// Print a one-time link that logs a browser into the web app (omnid --web-listen)
    Web(web::Args),
    /// Sum stored answers' tokens (input, cached, output, thinking) and their cost, per
    /// session, model or day (costs come from the `[prices."MODEL"]` tables of omnid's
    /// configuration)
    Usage(usage::Args),
    /// Lift a session's suspension after repeated failed sends (the history is untouched)
    Resume(resume::Args),
    /// Submit the result of a function call the model made ("-" reads JSON from stdin);
    /// with the last one, the model's continuation streams here
    ToolResult(tool_result::Args),
    /// Summarise the context up to its last rounds into one summary node: the model sees
    /// the summary from then on, the covered nodes stay in the tree (history, search,
    /// exports), and `omnictl undo` right after returns to the full context
    Compact(compact::Args),
    /// Choose how a session that needs recovery goes on (without a flag: a menu)
    Recover(recover::Args),
    /// Diagnostic logs: where they are, what they hold, and a bundle for a bug report
    Logs(logs::Args),
    /// Send a recorded failing request again (touching no session) and say if it still fails
    Replay(replay::Args),
    /// Cancel the session's answer in flight; the partial answer is kept out of the context
    Cancel(cancel::Args),
    /// Follow a session live (another client's answers, retries, moves) until Ctrl-C
    Attach(attach::Args),
    /// Write a session as Markdown (the path to the head), JSON (the whole tree) or JSON
    /// lines, to stdout or a file
    Export(export::Args),
    /// Import sessions from files or folders: Omni's own exports, or other tools' session
    /// files; the same content imported twice is added once
    Import(import::Args),
}
