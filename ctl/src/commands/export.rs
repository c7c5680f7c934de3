//! `omnictl export`: a session as Markdown, JSON or JSON lines. omnid sends it in pieces;
//! omnictl writes it to standard output, or with `-o` to a file with this user's own
//! permissions, never over an existing file without `--force`.

use std::path::{Path, PathBuf};

use omni_proto::{Event, Export, ExportFormat, Exported};
use serde_json::json;

use super::{Ctx, outfile};
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

/// What `omnictl export` was asked for.
pub struct Asked<'a> {
    pub format: ExportFormat,
    pub all: bool,
    pub output: Option<&'a Path>,
    pub force: bool,
}

async fn run(ctx: &mut Ctx, session: &SessionArg, asked: Asked<'_>) -> Result<(), CtlError> {
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

/// `omnictl export`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub session: SessionArg,
    /// md (a readable document), json (every node, move and the head; see
    /// docs/export.schema.json) or jsonl (the session, then one node per line)
    #[arg(long, value_name = "FORMAT", default_value = "md", value_parser = export_format)]
    pub format: omni_proto::ExportFormat,
    /// Write to FILE (with your permissions) instead of stdout
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it exists
    #[arg(long)]
    pub force: bool,
    /// Markdown: the turns out of the context too, struck through
    #[arg(long)]
    pub all: bool,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        let asked = Asked {
            format: self.format,
            all: self.all,
            output: self.output.as_deref(),
            force: self.force,
        };
        run(ctx, &self.session, asked).await
    }
}

/// `export --format`'s parser.
fn export_format(name: &str) -> Result<omni_proto::ExportFormat, String> {
    omni_proto::ExportFormat::parse(name).ok_or_else(|| {
        let names: Vec<&str> = omni_proto::ExportFormat::ALL
            .iter()
            .map(|f| f.name())
            .collect();
        format!("unknown format '{name}'; one of {}", names.join(", "))
    })
}
