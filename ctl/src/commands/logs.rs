//! `omnictl logs path | list | export`: the diagnostic records.

use std::path::{Path, PathBuf};

use omni_proto::{Bundle, Event, ExportLogs, ListErrors, LogPath, SessionRef};
use serde_json::json;

use super::{Ctx, outfile};
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

pub async fn path(ctx: &mut Ctx) -> Result<(), CtlError> {
    let file = ctx.ask(LogPath).await?;
    if ctx.json {
        output::json(&file);
    } else {
        output::line(&file.path);
    }
    Ok(())
}

pub async fn list(ctx: &mut Ctx, session: Option<String>) -> Result<(), CtlError> {
    let request = ListErrors {
        session: session.map(SessionRef::Id),
    };
    let list = ctx.ask(request).await?;
    if ctx.json {
        // As a JSON value: its keys in order, as `--json` has always printed them.
        output::json(&json!(list));
        return Ok(());
    }
    let errors = list.errors;
    if errors.is_empty() {
        output::line("no errors recorded");
    }
    for error in &errors {
        let message: String = error.message.chars().take(120).collect();
        output::line(&format!(
            "{}  {}  {}  {:<24} {message}",
            error.id, error.time, error.session, error.class
        ));
    }
    Ok(())
}

/// Where `-o` points: a file, or standard output.
enum Target {
    File(PathBuf),
    Stdout,
}

/// Asks omnid for the bundle (it travels over the socket) and writes it here, with this
/// user's own permissions: a new file (0600: it holds the transcript) that is never put in
/// place of an existing one unless `--force`.
pub async fn export(
    ctx: &mut Ctx,
    session: &SessionArg,
    error: Option<String>,
    output_path: Option<&Path>,
    force: bool,
) -> Result<(), CtlError> {
    let target = match output_path {
        Some(path) if path.as_os_str() == "-" => Some(Target::Stdout),
        Some(path) => Some(Target::File(path.to_path_buf())),
        None => None,
    };
    if let Some(Target::File(path)) = &target {
        outfile::check(ctx, path, force).await?;
    }
    let request = ExportLogs {
        session: session.session.clone().map(SessionRef::Id),
        error,
    };
    let mut bundle = Vec::new();
    let reply = ctx
        .call(request, |event| {
            if let Event::BundleData(piece) = event {
                bundle.extend_from_slice(&piece);
            }
        })
        .await?;
    let Bundle {
        name,
        errors,
        bytes,
    } = reply;
    if bundle.len() as u64 != bytes {
        return Err(CtlError::failure(format!(
            "the bundle arrived incomplete ({} of {bytes} bytes); nothing was written",
            bundle.len()
        )));
    }
    let path = match target.unwrap_or_else(|| Target::File(PathBuf::from(&name))) {
        Target::Stdout => {
            output::print(&String::from_utf8_lossy(&bundle));
            return Ok(());
        }
        Target::File(path) => path,
    };
    outfile::write(&path, &bundle, force, "the bundle")?;
    if ctx.json {
        output::json(&json!({ "path": path, "errors": errors, "bytes": bytes }));
    } else {
        output::line(&path.display().to_string());
        eprintln!(
            "omnictl: wrote a bundle with {errors} error record{}",
            if errors == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

/// `omnictl logs`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to do with them
    #[command(subcommand)]
    pub command: LogsCommand,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        match self.command {
            LogsCommand::Path => path(ctx).await,
            LogsCommand::List { session } => list(ctx, session).await,
            LogsCommand::Export {
                session,
                error,
                output,
                force,
            } => export(ctx, &session, error, output.as_deref(), force).await,
        }
    }
}

/// `omnictl logs ...`.
#[derive(Debug, clap::Subcommand)]
pub enum LogsCommand {
    /// Print the path of api_errors.log
    Path,
    /// List the recorded errors (id, time, session, class, message), newest first
    List {
        /// Only this session's [default: all sessions]
        #[arg(short = 's', long = "session", value_name = "ID")]
        session: Option<String>,
    },
    /// Write one self-contained bundle (log entries, records, transcript, configuration)
    Export {
        #[command(flatten)]
        session: SessionArg,
        /// Only this error (and its session's transcript)
        #[arg(long, value_name = "ERROR_ID")]
        error: Option<String>,
        /// Where to write it ("-" for stdout) [default: omni-bundle-<session>-<time>.json
        /// in the current directory]
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// Replace FILE if it exists
        #[arg(long)]
        force: bool,
    },
}
