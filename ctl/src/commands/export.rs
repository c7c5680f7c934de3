//! `omnictl export`: a session as Markdown, JSON or JSON lines. omnid sends it in pieces;
//! omnictl writes it to standard output, or with `-o` to a file with this user's own
//! permissions, never over an existing file without `--force`.

use std::path::Path;

use omni_proto::{Event, Export, ExportFormat, Exported};
use serde_json::json;

use super::{Ctx, outfile};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;

/// What `omnictl export` was asked for.
pub struct Asked<'a> {
    pub format: ExportFormat,
    pub all: bool,
    pub output: Option<&'a Path>,
    pub force: bool,
}

pub async fn run(ctx: &mut Ctx, session: &SessionArg, asked: Asked<'_>) -> Result<(), CtlError> {
    let target = asked.output.filter(|p| p.as_os_str() != "-");
    if let Some(path) = target {
        outfile::check(ctx, path, asked.force).await?;
    }
    let request = Export {
        session: session.to_ref(),
        format: asked.format,
        all: asked.all,
    };
    let mut bytes = Vec::new();
    let reply = ctx
        .call(request, |event| {
            if let Event::ExportData(piece) = event {
                bytes.extend_from_slice(&piece);
            }
        })
        .await?;
    let Exported {
        session,
        bytes: size,
        ..
    } = reply;
    if bytes.len() as u64 != size {
        return Err(CtlError::failure(format!(
            "the export arrived incomplete ({} of {size} bytes); nothing was written",
            bytes.len()
        )));
    }
    let Some(path) = target else {
        output::print(&String::from_utf8_lossy(&bytes));
        return Ok(());
    };
    outfile::write(path, &bytes, asked.force, "the export")?;
    if ctx.json {
        output::json(&json!({ "session": session, "path": path, "bytes": size }));
    } else {
        eprintln!(
            "omnictl: wrote session {session} to {} ({size} bytes)",
            path.display()
        );
    }
    Ok(())
}
