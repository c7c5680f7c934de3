//! `omnictl import PATH...`: reads session files here, with this user's permissions (files
//! as given, folders walked), and sends each session to omnid, which writes it as one
//! atomic change. A session bigger than a frame travels in staged pieces. A line a reader
//! skipped (a torn last line, the usual crash artefact, or a malformed one) is a warning
//! naming its file and line: the rest is imported and the exit status stays 0. A file that
//! cannot be read at all, or a session omnid refuses, is a problem: reported, the rest
//! still imported, and the exit status 1.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use omni_proto::{ExportedSession, Import, ImportOutcome, ImportPart};
use serde_json::json;

use super::Ctx;
use crate::error::CtlError;
use crate::import::{self, Source};
use crate::output;

/// The size of each piece of a session sent (well under the 16 MiB frame limit).
const PIECE: usize = 8 * 1024 * 1024;

/// What the run did, for its last line.
#[derive(Default)]
struct Tally {
    outcomes: Vec<ImportOutcome>,
    warnings: Vec<String>,
    problems: Vec<String>,
}

async fn run(ctx: &mut Ctx, paths: &[PathBuf], from: Option<Source>) -> Result<(), CtlError> {
    let (files, unreadable) = import::files(paths);
    let mut tally = Tally::default();
    for problem in &unreadable {
        note(&mut tally.problems, problem.to_string());
    }
    for file in &files {
        import_file(ctx, file, from, &mut tally).await;
    }
    report(ctx, &tally);
    if tally.problems.is_empty() {
        return Ok(());
    }
    let problems = format!(
        "{} problem{} (above)",
        tally.problems.len(),
        if tally.problems.len() == 1 { "" } else { "s" }
    );
    let rest = match tally.outcomes.len() {
        0 => "nothing was imported".to_string(),
        1 => "the one other session was imported".to_string(),
        n => format!("the {n} other sessions were imported"),
    };
    Err(CtlError::failure(format!("{problems}; {rest}")))
}

async fn import_file(ctx: &mut Ctx, file: &Path, from: Option<Source>, tally: &mut Tally) {
    let (source, read) = match import::read(file, from) {
        Ok(found) => found,
        Err(error) => {
            note(&mut tally.problems, error.to_string());
            return;
        }
    };
    for warning in &read.warnings {
        note(&mut tally.warnings, format!("warning: {warning}"));
    }
    let name = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let written = modified_ms(file);
    for mut session in read.sessions {
        // A file that keeps no times (gemini-cli's saved chats) dates from its last write.
        if session.created_at_ms == 0 {
            session.created_at_ms = written;
        }
        session.updated_at_ms = session.updated_at_ms.max(session.created_at_ms);
        match send(ctx, &session, source, &name).await {
            Ok(outcome) => {
                if !ctx.json {
                    output::line(&describe(&outcome));
                }
                tally.outcomes.push(outcome);
            }
            Err(error) => note(&mut tally.problems, format!("{}: {error}", file.display())),
        }
    }
}

/// When the file was last written, ms since the epoch (0 if the system cannot say).
fn modified_ms(file: &Path) -> u64 {
    std::fs::metadata(file)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |age| age.as_millis() as u64)
}

/// Prints a problem at once (so it is seen next to its file) and keeps it for the count.
fn note(problems: &mut Vec<String>, problem: String) {
    eprintln!("omnictl: {problem}");
    problems.push(problem);
}

/// Sends one session: whole when it fits a frame, else staged piece by piece.
async fn send(
    ctx: &mut Ctx,
    session: &ExportedSession,
    source: Source,
    file: &Path,
) -> Result<ImportOutcome, CtlError> {
    let data = serde_json::to_vec(session)
        .map_err(|e| CtlError::failure(format!("cannot encode the session: {e}")))?;
    let mut pieces: Vec<&[u8]> = data.chunks(PIECE).collect();
    let last = pieces.pop().unwrap_or_default().to_vec();
    let upload = (!pieces.is_empty()).then(upload_name);
    if let Some(name) = &upload {
        for piece in pieces {
            let request = ImportPart {
                upload: name.clone(),
                data: piece.to_vec(),
            };
            ctx.ask(request).await?;
        }
    }
    let request = Import {
        upload,
        data: last,
        tool: source.tool().into(),
        file: file.display().to_string(),
    };
    ctx.ask(request).await
}

/// A name no other upload shares: this process and the time in nanoseconds.
fn upload_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("omnictl-{}-{nanos}", std::process::id())
}

fn describe(outcome: &ImportOutcome) -> String {
    let what = match (outcome.added, outcome.new_id) {
        (false, _) => "already here",
        (true, true) => "imported (its id was taken: a new one)",
        (true, false) => "imported",
    };
    format!(
        "{}  {what}: {} ({} nodes)",
        outcome.session, outcome.title, outcome.nodes
    )
}

fn report(ctx: &Ctx, tally: &Tally) {
    let added = tally.outcomes.iter().filter(|o| o.added).count();
    let known = tally.outcomes.len() - added;
    if ctx.json {
        output::json(&json!({
            "sessions": tally.outcomes,
            "imported": added,
            "already_here": known,
            "warnings": tally.warnings,
            "problems": tally.problems,
        }));
    } else {
        let warned = match tally.warnings.len() {
            0 => String::new(),
            1 => ", 1 line skipped (above)".to_string(),
            n => format!(", {n} lines skipped (above)"),
        };
        eprintln!(
            "omnictl: {added} session{} imported, {known} already here{warned}",
            if added == 1 { "" } else { "s" }
        );
    }
}

/// `omnictl import`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or folders (walked for .json and .jsonl files)
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
    /// The files' format [default: recognised from each file]
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub from: Option<crate::import::Source>,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.paths, self.from).await
    }
}
