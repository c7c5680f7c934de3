//! `omnictl`: the command-line client of `omnid`.

mod chat;
mod cli;
mod commands;
mod error;
mod output;
mod render;

use std::process::ExitCode;

use clap::Parser;

use crate::render::style::Style;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
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
    match runtime.block_on(commands::run(cli)) {
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
