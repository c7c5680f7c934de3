//! `omnid`: parse flags, set up logging and signals, run the daemon.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use omnid::config::{Args, Config, Env};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    let args = Args::parse();
    if args.print_man {
        let mut page = Vec::new();
        return match clap_mangen::Man::new(Args::command()).render(&mut page) {
            Ok(()) => {
                print!("{}", String::from_utf8_lossy(&page));
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("omnid: cannot render the man page: {error}");
                ExitCode::FAILURE
            }
        };
    }
    let filter = EnvFilter::try_from_env("OMNI_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .init();

    match start(args, Env::from_process()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!("{error:#}");
            eprintln!("omnid: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn start(args: Args, env: Env) -> anyhow::Result<()> {
    let config = Config::load(&args, &env)?;
    if args.print_config {
        print!("{}", config.print()?);
        return Ok(());
    }
    let shutdown = CancellationToken::new();
    let (reload, reloads) = mpsc::unbounded_channel();
    omnid::signals::install(shutdown.clone(), reload)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("omnid")
        .build()?;
    runtime.block_on(omnid::run(
        omnid::Startup { config, args, env },
        shutdown,
        reloads,
    ))
}
