//! `omnictl logs path | list | export`: the diagnostic records.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use omni_proto::{Event, Reply, Request, SessionRef};
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
        refuse_to_replace(path, force)?;
        refuse_daemon_files(ctx, path).await?;
    }
    let request = Request::ExportLogs {
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
    let Reply::Bundle {
        name,
        errors,
        bytes,
    } = reply
    else {
        return Err(unexpected(reply));
    };
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
    write_bundle(&path, &bundle, force)?;
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

fn refuse_to_replace(path: &Path, force: bool) -> Result<(), CtlError> {
    if !force && std::fs::symlink_metadata(path).is_ok() {
        return Err(CtlError::usage(format!(
            "{} already exists; pass --force to replace it, or choose another -o",
            path.display()
        )));
    }
    Ok(())
}

/// Refuses a target inside omnid's data or log directory (the daemon says where they
/// are), however the path reaches it (`..`, symlinks): `--force` replaces the user's own
/// files, never the store or the daemon's logs.
async fn refuse_daemon_files(ctx: &mut Ctx, path: &Path) -> Result<(), CtlError> {
    let status = match ctx.ask(Request::Status).await? {
        Reply::Status(status) => status,
        other => return Err(unexpected(other)),
    };
    let owned = [
        ("data", Path::new(&status.data_dir)),
        ("log", Path::new(&status.log_dir)),
    ];
    for place in landing_places(path) {
        for (what, dir) in owned {
            if place.starts_with(resolved(dir)) || place.starts_with(dir) {
                return Err(CtlError::usage(format!(
                    "{} is inside omnid's {what} directory ({}); omnictl never writes there. \
                     Choose a path outside it with -o",
                    path.display(),
                    dir.display()
                )));
            }
        }
    }
    Ok(())
}

/// Every place writing to `path` may touch, symlinks resolved: the path as given (made
/// absolute), the file in its resolved directory (what a rename replaces), and, when it
/// exists, what it points to.
fn landing_places(path: &Path) -> Vec<PathBuf> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut places = vec![resolved(&absolute)];
    if let (Some(dir), Some(name)) = (absolute.parent(), absolute.file_name()) {
        places.push(resolved(dir).join(name));
    }
    places.push(absolute);
    places
}

/// A path with its symlinks and `..` resolved, when it exists; else as it is.
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Writes the bundle whole: a new file, or (with `force`) a file written aside and renamed
/// over the old one, so a failure never leaves half a bundle in place.
fn write_bundle(path: &Path, bytes: &[u8], force: bool) -> Result<(), CtlError> {
    let failed = |e: std::io::Error| {
        CtlError::failure(format!(
            "cannot write the bundle to {}: {e}",
            path.display()
        ))
    };
    if !force {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => CtlError::usage(format!(
                    "{} already exists; pass --force to replace it, or choose another -o",
                    path.display()
                )),
                _ => failed(e),
            })?;
        return file
            .write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| {
                let _ = std::fs::remove_file(path);
                failed(e)
            });
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut aside = tempfile::NamedTempFile::new_in(dir).map_err(failed)?;
    aside
        .write_all(bytes)
        .and_then(|()| aside.as_file().sync_all())
        .map_err(failed)?;
    aside.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}
