//! `omnid`: parse flags, set up logging and signals, run the daemon.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use omnid::{Action, Args, Config, Env, StoreAction};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    // Everything omnid creates (store, logs, sockets) is its user's alone, whatever the
    // umask it was started with.
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    // Before any thread starts (see `memory.rs`).
    omnid::limit_arenas();
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
    let (filter, bad_filter) = log_filter();
    tracing_subscriber::fmt()
        .with_writer(omnid::RedactedStderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .init();
    if let Some(warning) = bad_filter {
        tracing::warn!("{warning}");
    }

    match start(args, Env::from_process()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Once, on stderr (which the journal keeps under systemd).
            tracing::error!("{error:#}");
            ExitCode::FAILURE
        }
    }
}

/// The log filter from `OMNI_LOG` (default `info`), and a warning if it was not usable.
fn log_filter() -> (EnvFilter, Option<String>) {
    let Some(text) = std::env::var_os("OMNI_LOG").filter(|v| !v.is_empty()) else {
        return (EnvFilter::new("info"), None);
    };
    let text = text.to_string_lossy().into_owned();
    match EnvFilter::builder().parse(&text) {
        Ok(filter) => (filter, None),
        Err(error) => (
            EnvFilter::new("info"),
            Some(format!(
                "OMNI_LOG={text:?} is not a valid log filter ({error}); logging at `info`. \
                 Examples: OMNI_LOG=debug, OMNI_LOG=info,omnid=debug"
            )),
        ),
    }
}

fn start(args: Args, env: Env) -> anyhow::Result<()> {
    if let Some(Action::Store(StoreAction::Copy(copy))) = &args.action {
        print!("{}", omnid::copy_store(copy)?);
        return Ok(());
    }
    let config = Config::load(&args, &env)?;
    if args.print_config {
        print!("{}", omnid::print_config(config)?);
        return Ok(());
    }
    let scratch = match &args.demo_scratch_dir {
        Some(dir) => Some(omnid::Scratch::claim(dir, &config)?),
        None => None,
    };
    let shutdown = CancellationToken::new();
    let (reload, reloads) = mpsc::unbounded_channel();
    omnid::install_signals(shutdown.clone(), reload)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("omnid")
        .build()?;
    let ran = runtime.block_on(omnid::run(
        omnid::Startup { config, args, env },
        shutdown,
        reloads,
    ));
    // Everything in the scratch directory is closed once the runtime is gone.
    drop(runtime);
    if let Some(scratch) = scratch {
        scratch.remove();
    }
    ran
}
