//! `omnictl` without a daemon: clear errors and the documented exit codes.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::process::{Command, Output};

fn omnictl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_omnictl"))
        .args(args)
        .env_remove("OMNI_SOCKET")
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_missing_daemon_exits_4_with_advice() {
    let out = omnictl(&["--no-wait", "--socket", "/nonexistent/omnid.sock", "status"]);
    assert_eq!(out.status.code(), Some(4));
    let text = stderr(&out);
    assert!(
        text.contains("omnid is not running: there is no socket at /nonexistent/omnid.sock"),
        "{text}"
    );
    assert!(text.contains("start it with `omnid`"), "{text}");
}

#[test]
fn a_dead_daemons_socket_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("omnid.sock");
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    let out = omnictl(&["--no-wait", "--socket", path.to_str().unwrap(), "sessions"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(
        stderr(&out).contains("not accepting connections"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn no_socket_path_exits_4() {
    let out = omnictl(&["status"]);
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("no socket path"), "{}", stderr(&out));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(omnictl(&["send"]).status.code(), Some(2));
    assert_eq!(omnictl(&["checkout", "abc"]).status.code(), Some(2));
    let out = omnictl(&["--socket", "/nonexistent/omnid.sock", "send", "  "]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("the prompt is empty"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn json_errors_are_json_too() {
    let out = omnictl(&[
        "--json",
        "--no-wait",
        "--socket",
        "/nonexistent/omnid.sock",
        "status",
    ]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        value["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not running")
    );
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line_definition() {
    for (shell, marker) in [
        ("bash", "_omnictl()"),
        ("zsh", "#compdef omnictl"),
        ("fish", "complete -c omnictl"),
    ] {
        let out = omnictl(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(
            script.contains("tool-result"),
            "{shell} knows the subcommands"
        );
    }
    let out = omnictl(&["man"]);
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        page.lines().any(|l| l.starts_with(".TH omnictl 1")),
        "{page}"
    );
    assert!(page.contains("recover"), "{page}");
}
