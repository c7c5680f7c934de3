//! Start-up, crashes and shutdown: acknowledged turns survive kill -9, a second daemon
//! refuses a live socket, SIGTERM exits 0 and records an interrupted answer.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::time::Duration;

use omni_tests::fake_gemini::{Answer, Gate, Reply};
use omni_tests::harness::{Notifications, Omni, Signal};

const EXIT_WAIT: Duration = Duration::from_secs(15);

#[test]
fn every_acknowledged_turn_survives_kill_9() {
    let mut omni = Omni::start();
    let id = omni.ctl(&["--json", "new"]).ok().json()["session"].clone();
    for i in 0..5 {
        omni.ctl(&["send", &format!("prompt {i}")]).ok();
    }
    omni.ctl(&["undo"]).ok();
    let mut before = omni.ctl(&["--json", "history"]).ok().json();

    omni.kill9();
    assert!(
        omni.socket.exists(),
        "a killed daemon leaves its socket behind"
    );
    omni.restart();

    let mut after = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(after["session"], id, "the current session is remembered");
    // The model's context window is learned again in the background after a start: not
    // what a crash may lose.
    for history in [&mut before, &mut after] {
        history["context"].take();
    }
    assert_eq!(after, before);
    assert_eq!(after["entries"].as_array().unwrap().len(), 10);
    assert_eq!(after["head"], 9);
    // And the store keeps working after recovery.
    omni.ctl(&["redo"]).ok();
    omni.ctl(&["send", "after the crash"]).ok();
}

#[test]
fn a_second_daemon_on_a_live_socket_refuses_to_start() {
    let omni = Omni::start();
    let output = omni.daemon_command().output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("another omnid is already listening on"),
        "{stderr}"
    );
    // The first daemon still owns its socket and answers.
    omni.ctl(&["status"]).ok();
}

#[test]
fn a_second_daemon_on_the_same_data_directory_refuses_to_start() {
    let omni = Omni::start();
    let other_socket = omni.dir().join("other.sock");
    let output = omni.daemon_command_on(&other_socket).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is in use by another omnid"), "{stderr}");
    assert!(!other_socket.exists());
}

#[test]
fn sigterm_exits_0_and_removes_the_socket() {
    let mut omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.signal(Signal::TERM);
    let status = omni
        .wait_exit(EXIT_WAIT)
        .expect("omnid exits after SIGTERM");
    assert!(status.success(), "{status}: {}", omni.daemon_stderr());
    assert!(!omni.socket.exists());
    assert!(omni.daemon_stderr().contains("stopped cleanly"));
}

#[test]
fn sigterm_during_an_answer_keeps_the_partial_answer_out_of_the_context() {
    let mut omni = Omni::builder()
        .args(&["--shutdown-grace-secs", "3"])
        .start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "first"]).ok();
    let gate = Gate::new();
    omni.fake().push([Reply::HoldAfter {
        chunks: 2,
        gate: gate.clone(),
        answer: Answer::text(["partial ", "answer ", "never finished"]),
    }]);
    let mut send = omni.spawn_ctl(&["send", "second"]);
    send.read_texts(2);

    let stopping = std::time::Instant::now();
    omni.signal(Signal::TERM);
    let status = omni.wait_exit(EXIT_WAIT).expect("omnid exits");
    assert!(status.success(), "{status}: {}", omni.daemon_stderr());
    assert!(
        stopping.elapsed() < Duration::from_secs(3),
        "within the drain deadline"
    );
    let client = send.finish();
    assert_eq!(client.code, 1);
    assert!(client.stderr.contains("interrupted"), "{}", client.stderr);
    gate.open();

    omni.restart();
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(history["head"], 3, "the prompt stays at the head");
    let partial = &history["entries"][3];
    assert_eq!(partial["text"], "partial answer ");
    assert_eq!(partial["reverted"], true);
    assert_eq!(partial["model"]["interrupted"], true);
    let text = omni.ctl(&["history"]).ok().stdout;
    assert!(
        text.contains("[ REVERTED ] #4 model (interrupted): partial answer"),
        "{text}"
    );
    // The next request does not carry the partial answer.
    omni.ctl(&["send", "third"]).ok();
    let last = omni.fake().requests().last().unwrap().body.clone();
    assert!(!last.contains("partial answer"), "{last}");
}

#[test]
fn a_second_sigterm_exits_at_once_while_the_first_still_drains() {
    use omni_proto::{History, RequestFrame, SessionRef, frame};
    use omni_tests::raw;

    let notifications = Notifications::bind();
    let mut omni = Omni::builder()
        .args(&["--shutdown-grace-secs", "60"])
        .env("NOTIFY_SOCKET", notifications.path().to_str().unwrap())
        .start();
    omni.ctl(&["new"]).ok();
    omni.ctl_with_stdin(&["send", "-"], Some(&"x".repeat(3_000_000)))
        .ok();

    // A client asks for the (3 MB) transcript and never reads it: its connection's write
    // blocks once the socket buffer is full, so the first SIGTERM's drain cannot finish.
    let mut stuck = raw::connect_with_hello(&omni.socket);
    let history = RequestFrame {
        id: 1,
        request: History {
            session: SessionRef::Current,
            active_only: false,
        }
        .into(),
    };
    raw::write_frame(&mut stuck, &frame::encode(&history).unwrap());

    omni.signal(Signal::TERM);
    // systemd hears STOPPING=1 as the drain begins (it cannot finish).
    notifications.wait_for("STOPPING=1");
    let stopping = std::time::Instant::now();
    omni.signal(Signal::TERM);
    let status = omni.wait_exit(EXIT_WAIT).expect("omnid exits");
    assert_eq!(status.code(), Some(130), "{}", omni.daemon_stderr());
    assert!(stopping.elapsed() < Duration::from_secs(5));
    assert!(
        omni.daemon_stderr()
            .contains("received again: exiting without waiting")
    );
    drop(stuck);
}
