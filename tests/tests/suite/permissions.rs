//! Nobody else can read or change a user's sessions: the data and log directories are
//! 0700 and every file in them 0600 whatever the umask, and a socket in a directory other
//! users could write to is refused by both omnid and omnictl.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use omni_tests::fake_gemini::Reply;
use omni_tests::harness::Omni;

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every directory and file under `dir`, `dir` included.
fn everything_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = vec![dir.to_path_buf()];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(everything_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

fn assert_private(dir: &Path) {
    for path in everything_under(dir) {
        // The search index merges and replaces its files as it goes: one listed a moment
        // ago may be gone, which leaks nothing.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let expected = if meta.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(
            meta.permissions().mode() & 0o777,
            expected,
            "{}",
            path.display()
        );
    }
}

#[test]
fn data_and_logs_are_private_under_umask_022() {
    // What most shells start programs with; nextest runs each test in its own process.
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o022));
    let mut omni = Omni::builder().args(&["--retry-max-attempts", "1"]).start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::error(500, "INTERNAL", "boom")]);
    omni.ctl(&["send", "a secret prompt"]).fails(1, &["boom"]);
    assert!(omni.log_dir.join("api_errors.log").exists());
    assert!(omni.data_dir.join("db").exists());
    assert_private(&omni.data_dir);
    assert_private(&omni.log_dir);

    // What an older omnid left world-readable becomes private at the next start.
    omni.kill9();
    for path in everything_under(&omni.data_dir)
        .into_iter()
        .chain(everything_under(&omni.log_dir))
    {
        chmod(&path, if path.is_dir() { 0o755 } else { 0o644 });
    }
    omni.restart();
    assert_private(&omni.data_dir);
    assert_private(&omni.log_dir);
}

#[test]
fn a_socket_directory_others_can_write_is_refused_by_omnid_and_omnictl() {
    let mut omni = Omni::start();
    let run_dir = omni.socket.parent().unwrap().to_path_buf();

    // omnictl will not talk to a socket another user could have replaced.
    chmod(&run_dir, 0o1777);
    omni.ctl(&["status"]).fails(
        4,
        &[
            "refusing to talk to omnid",
            "writable by other users (mode 1777)",
        ],
    );
    chmod(&run_dir, 0o700);
    omni.ctl(&["status"]).ok();

    // omnid will not listen in such a directory.
    omni.kill9();
    chmod(&run_dir, 0o777);
    let output = omni.daemon_command().output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("refusing to listen"), "{stderr}");
    assert!(
        stderr.contains("writable by other users (mode 777)"),
        "{stderr}"
    );
    chmod(&run_dir, 0o700);
    omni.restart();
    omni.ctl(&["status"]).ok();
}
