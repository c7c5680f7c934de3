//! The README's quick start: `omnictl demo` runs a real session against `omnid --demo`.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::process::Command;

use omni_tests::harness::omnictl_bin;

#[test]
fn the_demo_runs_a_real_session_without_a_key_or_network() {
    let output = Command::new(omnictl_bin())
        .arg("demo")
        .env_remove("GEMINI_API_KEY")
        .env_remove("OMNI_SOCKET")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("$ omnictl send \"Hello! Who are you?\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("You said: \"Hello! Who are you?\""),
        "{stdout}"
    );
    assert!(stdout.contains("[ REVERTED ] #4 model"), "{stdout}");
    assert!(stdout.contains("omnid 0.1.0"), "{stdout}");
}

/// The quick start's chat: against `omnid --demo`, a tag in a prompt makes the demo model
/// fail once (healed by a retry), reject the request (the session needs recovery), or
/// answer in markdown.
#[test]
fn the_demo_model_shows_healing_recovery_and_markdown_in_a_chat() {
    let omni = omni_tests::harness::Omni::builder()
        .args(&["--demo"])
        .start();
    let chat = |script: &str| omni.ctl_with_stdin(&["chat"], Some(script));
    let healed = chat("hello [demo:503]\n").ok();
    assert!(healed.stderr.contains("attempt 1/"), "{}", healed.stderr);
    assert!(healed.stderr.contains("2 attempts"), "{}", healed.stderr);
    chat("break it [demo:400]\n").fails(3, &["needs recovery", "INVALID_ARGUMENT"]);
    let out = chat("/recover deep\n[demo:markdown]\n/history --active\n").ok();
    assert!(
        out.stdout.contains("# An append-only tree"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("break it"), "{}", out.stdout);
}

/// `omnictl demo --keep` leaves the daemon running; stopped with `kill`, it removes the
/// temporary directory that held its socket, store and logs.
#[test]
fn a_kept_demo_daemon_removes_its_directory_when_it_is_stopped() {
    let output = Command::new(omnictl_bin())
        .args(["demo", "--keep"])
        .env_remove("GEMINI_API_KEY")
        .env_remove("OMNI_SOCKET")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let after = |marker: &str| {
        let start = stdout.find(marker).unwrap() + marker.len();
        stdout[start..]
            .split(|c: char| c == ')' || c.is_whitespace())
            .next()
            .unwrap()
            .to_string()
    };
    let pid: i32 = after("(pid ").parse().unwrap();
    let dir = std::path::PathBuf::from(after("its files are in "));
    assert!(dir.join("omnid.sock").exists(), "{stdout}");
    let pid = rustix::process::Pid::from_raw(pid).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while dir.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{} is still there after the daemon was stopped",
            dir.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The README is what a newcomer reads first: short, and every link to the reference in
/// `docs/` leads to a file that is there.
#[test]
fn the_readme_stays_short_and_its_links_into_docs_resolve() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines < 400,
        "README.md is {lines} lines; the reference goes to docs/"
    );
    assert!(!readme.contains("the Gemini-compatible endpoint"));
    let mut linked = 0;
    for piece in readme.split("](docs/").skip(1) {
        let target = piece.split([')', '#']).next().unwrap();
        assert!(
            std::path::Path::new(&format!("{root}/docs/{target}")).exists(),
            "README links to docs/{target}, which is missing"
        );
        linked += 1;
    }
    assert!(
        linked >= 10,
        "the reference is linked from the README ({linked} links)"
    );
}
