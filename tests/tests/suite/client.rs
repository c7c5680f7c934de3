//! omnictl reaching the daemon and its session: it waits (visibly, boundedly) for a daemon
//! that is coming up, and offers a new session for a missing one only to a person at a
//! terminal.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::{Omni, omnictl_bin};

#[test]
fn the_client_waits_for_a_daemon_that_is_not_up_yet() {
    let mut omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.kill9(); // its socket stays behind: connections are refused
    let mut child = Command::new(omnictl_bin())
        .arg("--socket")
        .arg(&omni.socket)
        .arg("sessions")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert!(first.contains("omnid is not reachable at"), "{first}");
    assert!(
        first.contains("(connection refused); retry 1/3 in 1 s"),
        "{first}"
    );

    // The daemon comes back while the client waits; the next try gets through.
    omni.restart();
    let status = child.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(status.success(), "{first}{rest}");
    let mut listing = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut listing).unwrap();
    assert_eq!(
        listing.lines().count(),
        2,
        "a header and one session: {listing}"
    );
}

#[test]
fn a_missing_session_is_not_retried_without_a_terminal() {
    let omni = Omni::start();
    let start = Instant::now();
    let out = omni.ctl(&["send", "-s", "deadbeef", "hello"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("no session matches 'deadbeef'"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("new session instead"),
        "{}",
        out.stderr
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(omni.fake().request_count(), 0);
}

#[test]
fn at_a_terminal_a_missing_session_can_be_replaced_by_a_new_one() {
    let omni = Omni::start();
    let (ok, screen) = omni.ctl_at_terminal("send -s deadbeef hello there", "y\n");
    assert!(ok, "{screen}");
    assert!(
        screen.contains("start a new session instead? [y/N]"),
        "{screen}"
    );
    assert!(screen.contains("created session"), "{screen}");
    assert!(screen.contains("You said: \"hello there\""), "{screen}");
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(sessions["sessions"].as_array().unwrap().len(), 1);

    let (ok, screen) = omni.ctl_at_terminal("send -s deadbeef no thanks", "n\n");
    assert!(!ok, "{screen}");
    assert!(screen.contains("no session matches 'deadbeef'"), "{screen}");
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    assert_eq!(
        sessions["sessions"].as_array().unwrap().len(),
        1,
        "nothing created on 'no'"
    );
}

#[test]
fn a_prompt_read_from_a_terminal_is_asked_for() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    let (ok, screen) = omni.ctl_at_terminal("send -", "typed at the terminal\n\x04");
    assert!(ok, "{screen}");
    assert!(
        screen.contains("type the prompt, end with Ctrl-D"),
        "{screen}"
    );
    assert!(
        screen.contains("You said: \"typed at the terminal"),
        "{screen}"
    );
}

#[test]
fn the_wait_for_the_first_token_shows_the_time_since_the_prompt_was_stored() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::StallAfter {
        chunks: 0,
        stall: Duration::from_millis(1500),
        answer: Answer::text(["at ", "last"]),
    }]);
    let (ok, screen) = omni.ctl_at_terminal("send slow", "");
    assert!(ok, "{screen}");
    assert!(screen.contains("waiting for the model · 0."), "{screen}");
    assert!(
        screen.contains("waiting for the model · 1."),
        "it counts up: {screen}"
    );
    assert!(screen.contains("at last"), "{screen}");
}

#[test]
fn checkout_takes_node_numbers_as_every_listing_prints_them() {
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "one"]).ok();
    omni.ctl(&["send", "two"]).ok();
    let out = omni.ctl(&["checkout", "#2"]).ok();
    assert!(
        out.stdout.contains("head: node 2 (model)"),
        "{}",
        out.stdout
    );
    omni.ctl(&["checkout", "#x"])
        .fails(2, &["'#x' is not a node number"]);
}

#[test]
fn omnictl_finds_the_socket_that_the_configuration_file_names() {
    let omni = Omni::start();
    let run = |args: &[&str], config_home: &std::path::Path, socket_env: Option<&str>| {
        let mut command = Command::new(omnictl_bin());
        command
            .args(args)
            .env_remove("OMNI_SOCKET")
            .env_remove("XDG_RUNTIME_DIR")
            .env("XDG_CONFIG_HOME", config_home);
        if let Some(socket) = socket_env {
            command.env("OMNI_SOCKET", socket);
        }
        command.output().unwrap()
    };
    let home = omni.dir().join("client-config");
    std::fs::create_dir_all(home.join("omni")).unwrap();
    let names_the_socket = format!("socket = {:?}\nmodel = \"any\"\n", omni.socket);
    std::fs::write(home.join("omni/config.toml"), &names_the_socket).unwrap();

    // The file omnid would read names the socket: no flag, no environment needed.
    let out = run(&["status"], &home, None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&omni.socket.display().to_string()),
        "{stdout}"
    );

    // --config names another file, as it does for omnid.
    let elsewhere = omni.dir().join("elsewhere.toml");
    std::fs::write(&elsewhere, &names_the_socket).unwrap();
    let nowhere = omni.dir().join("no-config-here");
    let out = run(
        &["--config", elsewhere.to_str().unwrap(), "sessions"],
        &nowhere,
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // OMNI_SOCKET wins over the file, as it does for omnid.
    let out = run(
        &["--no-wait", "status"],
        &home,
        Some("/nonexistent/omnid.sock"),
    );
    assert_eq!(out.status.code(), Some(4));
}
