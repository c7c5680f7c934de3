//! `omnid`'s command line: bad configuration fails at once with a clear message.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::process::{Command, Output};

fn omnid(args: &[&str], env: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_omnid"))
        .args(args)
        .env_remove("OMNI_SOCKET")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("GEMINI_API_KEY")
        .env("HOME", dir.path())
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn version_and_help() {
    let out = omnid(&["--version"], &[]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("omnid {}", env!("CARGO_PKG_VERSION"))
    );
    let help = String::from_utf8_lossy(&omnid(&["--help"], &[]).stdout).into_owned();
    for flag in [
        "--socket",
        "--data-dir",
        "--log-dir",
        "--base-url",
        "--model",
        "--demo",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
}

#[test]
fn no_socket_path_is_a_clear_error() {
    let out = omnid(&[], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no socket path: pass --socket PATH"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_key_that_cannot_be_sent_is_refused() {
    let out = omnid(
        &["--socket", "/tmp/unused.sock"],
        &[("GEMINI_API_KEY", "abc\ndef")],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains("GEMINI_API_KEY is not usable"), "{text}");
    assert!(!text.contains("abc"), "the key is never printed: {text}");
}

#[test]
fn nonsense_limits_are_refused() {
    let out = omnid(
        &["--socket", "/tmp/unused.sock", "--max-connections", "0"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--max-connections must be at least 1"));
}

#[test]
fn something_that_is_not_a_socket_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("omnid.sock");
    std::fs::write(&path, "not a socket").unwrap();
    let data = dir.path().join("data");
    let out = omnid(
        &[
            "--socket",
            path.to_str().unwrap(),
            "--data-dir",
            data.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is not a socket; refusing to replace it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "not a socket");
}
