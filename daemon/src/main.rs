//! `omnid`: parse flags, set up logging and signals, run the daemon.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;
use omnid::{Args, Config};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let args = Args::parse();
    let filter = EnvFilter::try_from_env("OMNI_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .init();

    match start(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error:#}");
            eprintln!("omnid: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn start(args: Args) -> anyhow::Result<()> {
    let config = Config::from_args(args)?;
    let shutdown = CancellationToken::new();
    omnid::signals::install(shutdown.clone())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("omnid")
        .build()?;
    runtime.block_on(omnid::run(config, shutdown))
}
