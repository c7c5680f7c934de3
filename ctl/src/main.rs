//! `omnictl`: the command-line client of `omnid`.

mod chat;
mod cli;
mod commands;
mod docs;
mod error;
mod import;
mod output;
mod render;
mod session_arg;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::error::CtlError;
use crate::render::style::Style;

/// Runs the parsed command line: `chat` here, as it sits above the other commands, the
/// commands that need no daemon, and every other command through `commands`.
async fn run(cli: Cli) -> Result<(), CtlError> {
    let globals = cli.globals;
    match cli.command {
        Command::Asks(command) => command.run(&mut globals.ctx()?).await,
        Command::Chat {
            session,
            new,
            model,
            raw,
            no_pager,
        } => {
            let options = chat::Options {
                session: session.session,
                new,
                model,
                raw,
                pager: !no_pager,
            };
            chat::run(&mut globals.ctx()?, options).await
        }
        Command::Demo { keep, web } => commands::demo::run(keep || web, web, globals.json).await,
        Command::Completions { shell } => docs::completions(shell),
        Command::Man => docs::man(),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.globals.json;
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("omnictl: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if json {
                output::json(&render::json::error(error.kind, &error.message));
            }
            eprintln!("omnictl: {}", Style::stderr().error(&error.message));
            ExitCode::from(error.code)
        }
    }
}
