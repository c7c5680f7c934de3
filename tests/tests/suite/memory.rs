//! Memory a burst of connections took is given back once they are gone: four rounds of
//! 1,000 `/events` followers on `api.sock` leave omnid near where it started, not where
//! their peak took it (glibc keeps what each thread freed unless asked to give it back).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use omni_tests::harness::Omni;

const FOLLOWERS: usize = 1_000;
const ROUNDS: usize = 4;

/// omnid's resident memory, in MiB.
fn resident_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib / 1024
}

/// A follower of `session`'s events, its response head read.
fn follow(socket: &std::path::Path, session: &str) -> UnixStream {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /v1/sessions/{session}/events HTTP/1.1\r\nHost: omni\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "the head ended early");
        head.push(byte[0]);
    }
    assert!(
        head.starts_with(b"HTTP/1.1 200 "),
        "{}",
        String::from_utf8_lossy(&head)
    );
    stream
}

/// The test's own descriptors must hold a round of followers.
fn raise_own_open_files() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    limit.current = limit.maximum;
    setrlimit(Resource::Nofile, limit).unwrap();
}

#[test]
fn memory_taken_by_a_thousand_followers_is_given_back_after_they_leave() {
    raise_own_open_files();
    let omni = Omni::builder().open_files(4096, 4096).start();
    let session = omni.new_session();
    let socket = omni.socket.with_file_name("api.sock");
    let started = resident_mib(omni.pid());
    let mut peak = started;
    for _ in 0..ROUNDS {
        let followers: Vec<UnixStream> =
            (0..FOLLOWERS).map(|_| follow(&socket, &session)).collect();
        peak = peak.max(resident_mib(omni.pid()));
        drop(followers);
    }
    // The followers are gone; their memory is given back within seconds.
    let deadline = Instant::now() + Duration::from_secs(15);
    let allowed = started + (peak - started) / 3;
    let mut now = resident_mib(omni.pid());
    while now > allowed && Instant::now() < deadline {
        std::thread::park_timeout(Duration::from_millis(100));
        now = resident_mib(omni.pid());
    }
    assert!(
        now <= allowed,
        "omnid kept {now} MiB after the followers left (started at {started}, peak {peak})"
    );
    eprintln!("resident: started {started} MiB, peak {peak}, after {now}");
    omni.ctl(&["status"]).ok();
}
