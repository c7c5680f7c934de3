//! `omnictl logs path | list | export`: the diagnostic records.

use std::path::Path;

use omni_proto::{Reply, Request, SessionRef};
use serde_json::json;

use super::{Ctx, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;

pub async fn path(ctx: &mut Ctx) -> Result<(), CtlError> {
    match ctx.ask(Request::LogPath).await? {
        Reply::LogPath { path } => {
            if ctx.json {
                output::json(&json!({ "path": path }));
            } else {
                output::line(&path);
            }
            Ok(())
        }
        other => Err(unexpected(other)),
    }
}

pub async fn list(ctx: &mut Ctx, session: Option<String>) -> Result<(), CtlError> {
    let request = Request::ListErrors {
        session: session.map(SessionRef::Id),
    };
    let errors = match ctx.ask(request).await? {
        Reply::Errors(errors) => errors,
        other => return Err(unexpected(other)),
    };
    if ctx.json {
        output::json(&json!({ "errors": errors }));
        return Ok(());
    }
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

pub async fn export(
    ctx: &mut Ctx,
    session: &SessionArg,
    error: Option<String>,
    output_path: Option<&Path>,
) -> Result<(), CtlError> {
    let output = output_path
        .map(|p| {
            std::path::absolute(p)
                .map(|p| p.display().to_string())
                .map_err(|e| CtlError::usage(format!("cannot use the path {}: {e}", p.display())))
        })
        .transpose()?;
    let request = Request::ExportLogs {
        session: session.session.clone().map(SessionRef::Id),
        error,
        output,
    };
    match ctx.ask(request).await? {
        Reply::Exported { path, errors } => {
            if ctx.json {
                output::json(&json!({ "path": path, "errors": errors }));
            } else {
                output::line(&path);
                eprintln!(
                    "omnictl: wrote a bundle with {errors} error record{}",
                    if errors == 1 { "" } else { "s" }
                );
            }
            Ok(())
        }
        other => Err(unexpected(other)),
    }
}
