//! `omnictl logs path | list | export`: the diagnostic records.

use std::path::{Path, PathBuf};

use omni_proto::{Bundle, Event, ExportLogs, ListErrors, LogPath, SessionRef};
use serde_json::json;

use super::{Ctx, outfile};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;

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
        output::json(&list);
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
