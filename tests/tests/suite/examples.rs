//! The API examples in `examples/` run against a real daemon: each creates a session,
//! streams a send, undoes, shows the history and cancels a slow answer, checking every
//! step itself. Python 3 and Node must be installed (`scripts/test` installs them; the
//! Python is `omni_tests::python`'s).
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::process::Command;

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::Omni;
use omni_tests::scenario::held_answer;

fn run_example(program: &std::path::Path, file: &str) {
    let omni = Omni::start();
    omni.fake().push([Reply::Answer(Answer::text([
        "Hello ",
        "from ",
        "the model",
    ]))]);
    let gate = held_answer(&omni);
    let script = format!("{}/../examples/{file}", env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(program)
        .arg(&script)
        .arg(omni.socket.with_file_name("api.sock"))
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} (install it; `scripts/test` does): {e}",
                program.display()
            )
        });
    gate.open();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{file} failed:\n{stdout}\n{stderr}"
    );
    for expected in [
        "answer: Hello from the model",
        "stored as node 2",
        "undo: head at node 1 (user)",
        "[REVERTED] #2 model: Hello from the model",
        "cancelled: partial answer kept as node 4, out of the context",
        "the stream ended: cancelled",
        "history marks node 4 interrupted and reverted; head at node 3",
    ] {
        assert!(
            stdout.contains(expected),
            "{file} did not print {expected:?}:\n{stdout}"
        );
    }
    let sent = omni.fake().requests().len();
    assert_eq!(sent, 2, "two sends reached the model");
}

#[test]
fn the_python_example_runs_against_a_real_daemon() {
    run_example(&omni_tests::python::python(), "python/omni_client.py");
}

#[test]
fn the_node_example_runs_against_a_real_daemon() {
    run_example(std::path::Path::new("node"), "node/omni_client.mjs");
}
