//! `omnictl`: the command-line client of `omnid`.

mod chat;
mod cli;
mod cli_logs;
mod cli_sessions;
mod commands;
mod error;
mod import;
mod output;
mod render;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::error::CtlError;
use crate::render::style::Style;

/// Runs the parsed command line: `chat` here, as it sits above the other commands, and
/// every other command through `commands`.
async fn run(cli: Cli) -> Result<(), CtlError> {
    if let Command::Chat {
        session,
        new,
        model,
        raw,
        no_pager,
    } = &cli.command
    {
        let options = chat::Options {
            session: session.session.clone(),
            new: *new,
            model: model.clone(),
            raw: *raw,
            pager: !*no_pager,
        };
        let mut ctx = commands::Ctx::for_cli(&cli)?;
        return chat::run(&mut ctx, options).await;
    }
    commands::run(cli).await
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
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
