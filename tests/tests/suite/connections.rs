//! Connections cannot be used to lock clients out or pin the daemon's memory: a Hello and a
//! started frame have a time limit, idle connections are closed, frames in flight share one
//! memory budget, and warnings about bad frames are rate-limited.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::time::Duration;

use omni_proto::{ErrorKind, HelloReply, MAX_FRAME_LEN, frame};
use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::Omni;
use omni_tests::raw::{assert_closed, connect_with_hello, error_of, read_frame, write_frame};

/// A read that never ends fails the test instead of hanging it.
fn patient(stream: &UnixStream) {
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
}

#[test]
fn connections_that_say_nothing_are_closed_and_lock_nobody_out() {
    let omni = Omni::builder()
        .args(&["--max-connections", "4", "--client-timeout-secs", "1"])
        .start();
    let mut silent: Vec<UnixStream> = (0..4)
        .map(|_| UnixStream::connect(&omni.socket).unwrap())
        .collect();
    let mut timed_out = 0;
    for stream in &mut silent {
        patient(stream);
        let reply: HelloReply = frame::decode(&read_frame(stream).unwrap()).unwrap();
        let HelloReply::Rejected { message, .. } = reply else {
            panic!("{reply:?}");
        };
        timed_out += usize::from(message.contains("no Hello within 1 s"));
        assert_closed(stream);
    }
    assert!(
        timed_out >= 3,
        "each silent connection is told why and closed"
    );
    omni.ctl(&["status"]).ok();
}

#[test]
fn an_idle_connection_is_closed_but_one_waiting_for_an_answer_is_not() {
    let omni = Omni::builder()
        .args(&["--idle-timeout-secs", "0.5"])
        .start();
    let mut idle = connect_with_hello(&omni.socket);
    patient(&idle);
    let (kind, message) = error_of(&read_frame(&mut idle).unwrap());
    assert_eq!(kind, ErrorKind::InvalidRequest);
    assert!(
        message.contains("no request for 0.5 s; closing this idle connection"),
        "{message}"
    );
    assert_closed(&mut idle);

    omni.ctl(&["new"]).ok();
    omni.fake().push([Reply::StallAfter {
        chunks: 0,
        stall: Duration::from_millis(1500),
        answer: Answer::text(["worth ", "the wait"]),
    }]);
    let out = omni.ctl(&["send", "take your time"]).ok();
    assert_eq!(out.stdout.trim(), "worth the wait");
}

#[test]
fn a_frame_that_trickles_in_is_cut_off_with_a_reason() {
    let omni = Omni::builder()
        .args(&["--client-timeout-secs", "0.5"])
        .start();
    let mut slow = connect_with_hello(&omni.socket);
    patient(&slow);
    slow.write_all(&1000u32.to_be_bytes()).unwrap();
    slow.write_all(&[1; 10]).unwrap();
    let (_, message) = error_of(&read_frame(&mut slow).unwrap());
    assert!(
        message.contains("did not arrive whole within 0.5 s"),
        "{message}"
    );
    assert_closed(&mut slow);
    omni.ctl(&["status"]).ok();
}

fn resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kib * 1024
}

/// What became of a connection that sent most of a 16 MiB frame.
enum HalfSent {
    /// The daemon took the bytes and waits for the rest (the connection stays open).
    Held { _open: UnixStream },
    /// The daemon refused it; its message.
    Refused(String),
}

fn send_most_of_a_big_frame(omni: &Omni) -> HalfSent {
    let mut stream = connect_with_hello(&omni.socket);
    patient(&stream);
    let claimed = MAX_FRAME_LEN as u32;
    let sent = stream
        .write_all(&claimed.to_be_bytes())
        .and_then(|()| stream.write_all(&vec![0x42; 14 * 1024 * 1024]));
    if sent.is_ok() {
        return HalfSent::Held { _open: stream };
    }
    let (_, message) = error_of(&read_frame(&mut stream).unwrap());
    HalfSent::Refused(message)
}

#[test]
fn half_sent_big_frames_share_one_memory_budget_and_small_requests_still_pass() {
    let omni = Omni::builder()
        .args(&["--client-timeout-secs", "8"])
        .start();
    let before = resident_bytes(omni.pid());
    let (done, results) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..12 {
            let (done, omni) = (done.clone(), &omni);
            scope.spawn(move || done.send(send_most_of_a_big_frame(omni)).unwrap());
        }
    });
    drop(done);
    let outcomes: Vec<HalfSent> = results.iter().collect();
    // While the budget is spent, the daemon holds at most its 64 MiB, not 12 × 14 MiB...
    let grown = resident_bytes(omni.pid()).saturating_sub(before);
    assert!(
        grown < 120 * 1024 * 1024,
        "omnid grew by {} MiB",
        grown >> 20
    );
    // ...and a small request still gets through.
    omni.ctl(&["status"]).ok();
    let refused: Vec<&String> = outcomes
        .iter()
        .filter_map(|o| match o {
            HalfSent::Refused(message) => Some(message),
            HalfSent::Held { .. } => None,
        })
        .collect();
    assert!(refused.len() >= 8, "{} refused", refused.len());
    assert!(refused.len() < 12, "the budget holds some frames");
    for message in refused {
        assert!(
            message.contains("too many large requests at once (64 MiB"),
            "{message}"
        );
    }
}

#[test]
fn warnings_about_bad_frames_are_rate_limited() {
    let omni = Omni::start();
    for _ in 0..40 {
        let mut stream = connect_with_hello(&omni.socket);
        patient(&stream);
        write_frame(&mut stream, &[0xff, 0x13, 0x37]);
        let (kind, _) = error_of(&read_frame(&mut stream).unwrap());
        assert_eq!(kind, ErrorKind::InvalidRequest);
    }
    let log = omni.daemon_stderr();
    let warnings = log
        .matches("closing a connection after a bad frame")
        .count();
    assert!((1..=5).contains(&warnings), "{warnings} warnings:\n{log}");
    omni.ctl(&["status"]).ok();
}
