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
