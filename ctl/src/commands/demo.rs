//! `omnictl demo`: a real session against a private `omnid --demo`, as a user would type it.
//!
//! It starts `omnid --demo` (found next to this omnictl, else on PATH) on a temporary socket
//! and data directory, then runs a short script of real `omnictl` commands against it,
//! printing each command before its output. The daemon removes that directory when it
//! exits (`--demo-scratch-dir`), so `--keep` leaves nothing behind once it is stopped. The daemon answers from its bundled demo
//! model over HTTP on 127.0.0.1, so no API key and no network are needed.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::CtlError;
use crate::render::style::Style;

const SCRIPT: &[&[&str]] = &[
    &["new"],
    &["send", "Hello! Who are you?"],
    &["send", "Remember the number 42."],
    &["undo"],
    &["send", "Actually, remember the number 7."],
    &["history"],
    &["back"],
    &["history"],
    &["redo"],
    &["branches"],
    &["status"],
];

fn find_omnid() -> Result<PathBuf, CtlError> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("omnid")))
        .filter(|path| path.is_file());
    let on_path = || {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("omnid"))
                .find(|path| path.is_file())
        })
    };
    beside.or_else(on_path).ok_or_else(|| {
        CtlError::failure(
            "cannot find omnid next to omnictl or on PATH; build both with `cargo build`",
        )
    })
}

fn wait_for_socket(socket: &Path, daemon: &mut Child, log: &Path) -> Result<(), CtlError> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::os::unix::net::UnixStream::connect(socket).is_err() {
        if let Ok(Some(status)) = daemon.try_wait() {
            let log = std::fs::read_to_string(log).unwrap_or_default();
            return Err(CtlError::failure(format!(
                "omnid --demo exited ({status}):\n{log}"
            )));
        }
        if Instant::now() > deadline {
            return Err(CtlError::failure("omnid --demo did not start within 20 s"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Stops the demo daemon the way a service manager would: SIGTERM, then wait.
fn stop(daemon: &mut Child) {
    let pid = rustix::process::Pid::from_child(daemon);
    if rustix::process::kill_process(pid, rustix::process::Signal::TERM).is_err() {
        let _ = daemon.kill();
    }
    let _ = daemon.wait();
}

/// The demo daemon, started on a socket in `dir`, logging to a file there.
struct DemoDaemon {
    child: Child,
    socket: PathBuf,
    log: PathBuf,
}

/// Starts `omnid --demo` with everything in `dir`, and waits for its socket.
fn start(omnid: &Path, dir: &Path, web: bool) -> Result<DemoDaemon, CtlError> {
    let socket = dir.join("omnid.sock");
    let log = dir.join("omnid.log");
    let log_file = std::fs::File::create(&log)
        .map_err(|e| CtlError::failure(format!("cannot create {}: {e}", log.display())))?;
    let mut command = Command::new(omnid);
    if web {
        command.arg("--web-listen").arg("127.0.0.1:0");
    }
    let mut child = command
        .arg("--demo")
        .arg("--socket")
        .arg(&socket)
        .arg("--data-dir")
        .arg(dir.join("data"))
        .arg("--log-dir")
        .arg(dir.join("logs"))
        // omnid removes the directory when it exits, also after `--keep`.
        .arg("--demo-scratch-dir")
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file)
        .spawn()
        .map_err(|e| CtlError::failure(format!("cannot start {}: {e}", omnid.display())))?;
    if let Err(error) = wait_for_socket(&socket, &mut child, &log) {
        stop(&mut child);
        return Err(error);
    }
    Ok(DemoDaemon { child, socket, log })
}

/// Runs the script's commands with this omnictl, showing each first; the first failure
/// stops it and is returned.
fn run_script(me: &Path, socket: &Path, json: bool) -> Option<String> {
    let style = Style::stdout();
    for args in SCRIPT {
        let shown: Vec<String> = args
            .iter()
            .map(|a| {
                if a.contains(' ') {
                    format!("\"{a}\"")
                } else {
                    a.to_string()
                }
            })
            .collect();
        println!(
            "\n{}",
            style.bold(&format!("$ omnictl {}", shown.join(" ")))
        );
        let mut command = Command::new(me);
        command.arg("--socket").arg(socket).args(*args);
        if json {
            command.arg("--json");
        }
        match command.status() {
            Ok(status) if status.success() => {}
            Ok(status) => return Some(format!("`omnictl {}` failed ({status})", args.join(" "))),
            Err(e) => return Some(format!("cannot run omnictl: {e}")),
        }
    }
    None
}

pub async fn run(keep: bool, web: bool, json: bool) -> Result<(), CtlError> {
    let omnid = find_omnid()?;
    let me = std::env::current_exe()
        .map_err(|e| CtlError::failure(format!("cannot find omnictl itself: {e}")))?;
    let dir = tempfile::Builder::new()
        .prefix("omni-demo-")
        .tempdir()
        .map_err(|e| CtlError::failure(format!("cannot create a temporary directory: {e}")))?;
    let mut daemon = start(&omnid, dir.path(), web)?;
    let failed = run_script(&me, &daemon.socket, json);
    if keep && failed.is_none() {
        let kept = dir.keep();
        let pid = daemon.child.id();
        println!(
            "\nThe demo daemon keeps running (pid {pid}). Try it:\n  export OMNI_SOCKET={}\n  \
             omnictl send \"your own prompt\"\nStop it with `kill {pid}`; its files are in {} (removed when it exits).",
            daemon.socket.display(),
            kept.display()
        );
        if web {
            println!("\nThe web app (open this link once, in a browser on this machine):");
            let shown = Command::new(&me)
                .arg("--socket")
                .arg(&daemon.socket)
                .arg("web")
                .status();
            if !shown.is_ok_and(|status| status.success()) {
                return Err(CtlError::failure("the demo daemon gave no web login link"));
            }
        }
        return Ok(());
    }
    stop(&mut daemon.child);
    match failed {
        Some(message) => Err(CtlError::failure(format!(
            "{message}; the daemon's log:\n{}",
            std::fs::read_to_string(&daemon.log).unwrap_or_default()
        ))),
        None => {
            let note = "That was a real omnid with a real sled store; the demo model is a \
                        small deterministic one on 127.0.0.1.";
            println!("\n{}", Style::stdout().dim(note));
            Ok(())
        }
    }
}
