//! One file per subcommand; this module connects and dispatches.

mod around;
mod attach;
pub mod branches;
mod cancel;
pub mod compact;
mod demo;
mod docs;
mod export;
mod history;
mod import;
pub mod keep;
pub mod logs;
pub mod model;
pub mod moves;
pub mod new;
mod outfile;
mod recover;
mod replay;
pub mod resume;
pub mod search;
mod send;
pub mod sessions;
pub mod status;
pub mod stream;
mod tool_result;
pub mod usage;
mod web;

mod ctx;

pub use ctx::Ctx;

use omni_proto::MoveOp;

use crate::cli::{Cli, Command, LogsCommand, SessionArg};
use crate::error::CtlError;

/// Runs the parsed command line (all but `chat`, which sits above this module and is run
/// from `main.rs`).
pub async fn run(cli: Cli) -> Result<(), CtlError> {
    // Commands that need no daemon.
    match cli.command {
        Command::Demo { keep, web } => return demo::run(keep || web, web, cli.json).await,
        Command::Completions { shell } => return docs::completions(shell),
        Command::Man => return docs::man(),
        _ => {}
    }
    let mut ctx = Ctx::for_cli(&cli)?;
    dispatch(&mut ctx, cli.command).await
}

/// Runs a command that talks to the daemon: those that make or answer turns here, the
/// rest further down the chain.
async fn dispatch(ctx: &mut Ctx, command: Command) -> Result<(), CtlError> {
    match command {
        Command::New {
            tools,
            model,
            fallback,
            system,
        } => {
            let asked = new::Asked {
                tools: tools.as_deref(),
                model,
                fallback,
                system,
            };
            new::run(ctx, asked).await
        }
        Command::Model { session, model } => model::run(ctx, &session, model).await,
        Command::Send {
            session,
            text,
            replace,
        } => send::run(ctx, &session, &text, replace).await,
        Command::Retry { session } => send::retry(ctx, &session).await,
        Command::ToolResult {
            session,
            call_id,
            name,
            result,
        } => tool_result::run(ctx, &session, call_id, name, &result).await,
        Command::Cancel { session } => cancel::run(ctx, &session).await,
        Command::Attach { session } => attach::run(ctx, &session).await,
        other => dispatch_state(ctx, other).await,
    }
}

/// Moves in the tree, recovery and resuming: the commands that change a session's state.
async fn dispatch_state(ctx: &mut Ctx, command: Command) -> Result<(), CtlError> {
    match command {
        Command::Undo { session } => moves::run(ctx, &session, MoveOp::Undo).await,
        Command::Redo { session } => moves::run(ctx, &session, MoveOp::Redo).await,
        Command::Back { session } => moves::run(ctx, &session, MoveOp::Back).await,
        Command::Checkout { session, node } => {
            moves::run(ctx, &session, MoveOp::Checkout { node }).await
        }
        Command::Compact {
            session,
            keep,
            instructions,
        } => compact::run(ctx, &session, compact::Asked { keep, instructions }).await,
        Command::Recover {
            session,
            compact,
            deep,
            clear,
            ignore,
            retry,
        } => {
            let action = recover::chosen([compact, deep, clear, ignore, retry]);
            recover::run(ctx, &session, action).await
        }
        Command::Resume { id, session } => {
            let session = SessionArg {
                session: id.or(session.session),
            };
            resume::run(ctx, &session).await
        }
        other => dispatch_read(ctx, other).await,
    }
}

/// The commands that only read: transcripts, listings, health and diagnostics.
async fn dispatch_read(ctx: &mut Ctx, command: Command) -> Result<(), CtlError> {
    match command {
        Command::History {
            session,
            active,
            thoughts,
            tree,
            full,
            no_pager,
            around,
            context,
        } => {
            let shape = history::Shape {
                active,
                thoughts,
                tree,
                full,
                pager: !no_pager,
                around: around.map(|node| (node, context)),
            };
            history::run(ctx, &session, shape).await
        }
        Command::Branches { session } => branches::run(ctx, &session).await,
        Command::Sessions(args) => sessions::run(ctx, &args).await,
        Command::Keep(command) => keep::run(ctx, command).await,
        Command::Status => status::run(ctx).await,
        Command::Web { open } => web::run(ctx, open).await,
        Command::Usage { since, by, session } => {
            usage::run(ctx, since.as_deref(), by, session).await
        }
        Command::Logs { command } => logs_command(ctx, command).await,
        Command::Replay { error } => replay::run(ctx, error).await,
        Command::Export {
            session,
            format,
            output,
            force,
            all,
        } => {
            let asked = export::Asked {
                format,
                all,
                output: output.as_deref(),
                force,
            };
            export::run(ctx, &session, asked).await
        }
        Command::Import { paths, from } => import::run(ctx, &paths, from).await,
        Command::Search {
            query,
            session,
            role,
            since,
            limit,
            archived,
        } => {
            let asked = search::Asked {
                words: query.join(" "),
                session,
                role,
                since,
                limit,
                archived,
            };
            search::run(ctx, asked).await
        }
        // Run before a daemon is needed (`run`), or from `main.rs` (`chat`).
        Command::Demo { .. }
        | Command::Completions { .. }
        | Command::Man
        | Command::Chat { .. } => Ok(()),
        other => Err(CtlError::failure(format!(
            "omnictl has no handler for {other:?}"
        ))),
    }
}

/// `omnictl logs ...`.
async fn logs_command(ctx: &mut Ctx, command: LogsCommand) -> Result<(), CtlError> {
    match command {
        LogsCommand::Path => logs::path(ctx).await,
        LogsCommand::List { session } => logs::list(ctx, session).await,
        LogsCommand::Export {
            session,
            error,
            output,
            force,
        } => logs::export(ctx, &session, error, output.as_deref(), force).await,
    }
}
