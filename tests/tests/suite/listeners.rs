//! The HTTP listeners (`api.sock`, `--http-listen`, `--proxy-listen`) cannot be held by
//! anyone on the machine: a connection that stalls before its request is whole, or idles
//! between requests, is closed; each TCP listener serves a bounded number of connections,
//! answering 503 past it, and leaves enough descriptors for the sockets; a body declared
//! too large is refused before it is read; a body's unknown field is named.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use omni_tests::harness::{Omni, TEST_API_KEY};

/// One end of a connection to a listener.
trait Conn: Read + Write {}
impl<T: Read + Write> Conn for T {}

/// Where a test connects.
#[derive(Debug, Clone)]
enum Target {
    Unix(std::path::PathBuf),
    Tcp(SocketAddr),
}

impl Target {
    /// A connection that fails the test, rather than hangs it, if a read waits longer
    /// than `patience`.
    fn connect(&self, patience: Duration) -> Box<dyn Conn> {
        match self {
            Target::Unix(path) => {
                let stream = UnixStream::connect(path).unwrap();
                stream.set_read_timeout(Some(patience)).unwrap();
                Box::new(stream)
            }
            Target::Tcp(address) => {
                let stream = TcpStream::connect(address).unwrap();
                stream.set_read_timeout(Some(patience)).unwrap();
                Box::new(stream)
            }
        }
    }
}

/// What the daemon sent until it closed the connection; `None` if it kept it open
/// past the read timeout.
fn until_closed(conn: &mut dyn Conn) -> Option<String> {
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match conn.read(&mut buffer) {
            Ok(0) => return Some(String::from_utf8_lossy(&seen).into_owned()),
            Ok(n) => seen.extend_from_slice(&buffer[..n]),
            Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(String::from_utf8_lossy(&seen).into_owned());
            }
            Err(_) => return None,
        }
    }
}

/// The daemon's three HTTP listeners.
fn targets(omni: &Omni) -> Vec<(&'static str, Target)> {
    let status = omni.ctl(&["--json", "status"]).ok().json();
    let address = |value: &serde_json::Value| value.as_str().unwrap().parse().unwrap();
    vec![
        (
            "api.sock",
            Target::Unix(omni.socket.with_file_name("api.sock")),
        ),
        ("http", Target::Tcp(address(&status["http_address"]))),
        ("proxy", Target::Tcp(address(&status["proxy"]["address"]))),
    ]
}

const TCP_LISTENERS: [&str; 4] = [
    "--http-listen",
    "127.0.0.1:0",
    "--proxy-listen",
    "127.0.0.1:0",
];

#[test]
fn connections_that_stall_or_idle_are_closed_in_time() {
    let omni = Omni::builder()
        .args(&TCP_LISTENERS)
        .args(&["--client-timeout-secs", "1"])
        .start();
    let stalls: [(&str, &str); 4] = [
        ("silent", ""),
        ("half a head", "GET /v1/status HTTP/1.1\r\nHost: omni\r\n"),
        (
            "a head and half a body",
            "POST PATH HTTP/1.1\r\nHost: omni\r\nKEYContent-Length: 100\r\n\r\n{\"con",
        ),
        (
            "idle after a request",
            "GET /v1/status HTTP/1.1\r\nHost: omni\r\n\r\n",
        ),
    ];
    let started = Instant::now();
    let mut open = Vec::new();
    for (listener, target) in targets(&omni) {
        for (stall, bytes) in stalls {
            // The proxy reads no body before it admits the key: this one has it.
            let (path, key) = match listener {
                "proxy" => (
                    "/v1beta/models/fake-model:generateContent",
                    format!("x-goog-api-key: {TEST_API_KEY}\r\n"),
                ),
                _ => ("/v1/sessions", String::new()),
            };
            let mut conn = target.connect(Duration::from_secs(8));
            let bytes = bytes.replace("PATH", path).replace("KEY", &key);
            conn.write_all(bytes.as_bytes()).unwrap();
            open.push((listener, stall, conn));
        }
    }
    for (listener, stall, mut conn) in open {
        let seen = until_closed(conn.as_mut());
        let took = started.elapsed();
        assert!(
            seen.is_some() && took < Duration::from_secs(5),
            "{listener}, {stall}: still open after {took:?}"
        );
        let seen = seen.unwrap();
        if stall == "idle after a request" {
            assert!(seen.starts_with("HTTP/1.1 "), "{listener}: {seen}");
        }
        if stall == "a head and half a body" && listener != "http" {
            // (On TCP the token is checked first: that answer is a 401.)
            assert!(seen.starts_with("HTTP/1.1 408"), "{listener}: {seen}");
        }
    }
    omni.ctl(&["status"]).ok();
}

/// Floods `target` with `count` silent connections. A listener accepts in order: the
/// first `cap` are served (held open, waiting for a request), each later one is answered
/// 503 at once or (while many refusals are being answered) closed. Returns the served
/// connections and one 503 answer.
fn flood(target: &Target, count: usize, cap: usize) -> (Vec<Box<dyn Conn>>, String) {
    let mut conns: Vec<Box<dyn Conn>> = (0..count)
        .map(|_| target.connect(Duration::from_secs(1)))
        .collect();
    let mut answer = String::new();
    for conn in &mut conns[cap..] {
        let seen = until_closed(conn.as_mut()).expect("closed past the cap");
        if !seen.is_empty() {
            assert!(seen.starts_with("HTTP/1.1 503 "), "{seen}");
            answer = seen;
        }
    }
    for served in [0, cap - 1] {
        assert!(
            until_closed(conns[served].as_mut()).is_none(),
            "connection {served} is served"
        );
    }
    conns.truncate(cap);
    (conns, answer)
}

/// The answer of the next connection the daemon answers: one closed without an answer
/// (refusals were still being answered) is tried again, for at most three seconds.
fn latecomer(target: &Target) -> String {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let answer = until_closed(target.connect(Duration::from_secs(2)).as_mut()).unwrap();
        if !answer.is_empty() || Instant::now() > deadline {
            return answer;
        }
    }
}

#[test]
fn past_the_cap_a_connection_gets_503_and_the_sockets_stay_served() {
    // 600 descriptors, not to be raised: the TCP listeners get (600 - 256 - 64) / 3 = 93
    // connections each, however many the setting asks for.
    let omni = Omni::builder()
        .open_files(600, 600)
        .args(&TCP_LISTENERS)
        .args(&[
            "--tcp-max-connections",
            "1000",
            "--client-timeout-secs",
            "60",
        ])
        .start();
    let mut floods = Vec::new();
    for (listener, target) in targets(&omni).into_iter().skip(1) {
        let (conns, answer) = flood(&target, 350, 93);
        assert!(answer.contains("serves 93 "), "{listener}: {answer}");
        floods.push(conns);
    }
    // 700 connections were offered to a daemon that may open 600 files: the control
    // socket and api.sock still answer at once.
    let asked = Instant::now();
    omni.ctl(&["status"]).ok();
    omni.api().get("/v1/status").json();
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
    // A latecomer is answered 503 promptly, in the proxy's shape on the proxy.
    let proxy = &targets(&omni)[2].1;
    let answer = latecomer(proxy);
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer}");
    assert!(answer.contains(r#""status":"UNAVAILABLE""#), "{answer}");
    drop(floods);
}

#[test]
fn omnid_raises_its_soft_limit_on_open_files() {
    let omni = Omni::builder().open_files(512, 4096).start();
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", omni.pid())).unwrap();
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .unwrap();
    let numbers: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers, ["4096", "4096"], "{line}");
}

#[test]
fn a_body_declared_too_large_is_refused_at_once() {
    let omni = Omni::builder().args(&TCP_LISTENERS).start();
    let targets = targets(&omni);
    for (listener, path) in [
        ("api.sock", "/v1/sessions"),
        ("proxy", "/v1beta/models/fake-model:generateContent"),
    ] {
        let target = &targets
            .iter()
            .find(|(name, _)| *name == listener)
            .unwrap()
            .1;
        let mut conn = target.connect(Duration::from_secs(2));
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: omni\r\nContent-Type: application/json\r\n\
             x-goog-api-key: {TEST_API_KEY}\r\nContent-Length: 99999999999\r\n\r\n{{"
        );
        conn.write_all(head.as_bytes()).unwrap();
        let mut answer = vec![0u8; 4096];
        let n = conn.read(&mut answer).expect("an answer within 2 s");
        let answer = String::from_utf8_lossy(&answer[..n]).into_owned();
        assert!(answer.starts_with("HTTP/1.1 413 "), "{listener}: {answer}");
        let body: serde_json::Value =
            serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        match listener {
            // The API's own error shape...
            "api.sock" => assert_eq!(body["error"]["kind"], "invalid_request", "{body}"),
            // ...and the Gemini API's on the proxy.
            _ => {
                assert_eq!(body["error"]["code"], 413, "{body}");
                assert_eq!(body["error"]["status"], "INVALID_ARGUMENT", "{body}");
            }
        }
    }
}

#[test]
fn an_unknown_field_in_a_body_is_refused_by_name() {
    let omni = Omni::start();
    let api = omni.api();
    let message = api
        .post(
            "/v1/sessions",
            r#"{"model": "fake-model", "fallbak": ["other"]}"#,
        )
        .error(400, "invalid_request");
    assert!(message.contains("unknown field \"fallbak\""), "{message}");
    assert!(message.contains("\"fallback\""), "{message}");
    let message = api
        .post("/v1/sessions/current/undo", r#"{"steps": 2}"#)
        .error(400, "invalid_request");
    assert!(message.contains("unknown field \"steps\""), "{message}");
    assert!(
        api.get("/v1/sessions").json()["sessions"]
            .as_array()
            .unwrap()
            .is_empty(),
        "nothing was created"
    );
}

/// The daemon's connected TCP sockets (copies of its descriptors, taken with
/// `pidfd_getfd`), with the local port of each.
fn daemon_tcp_connections(pid: u32) -> Vec<(u16, TcpStream)> {
    use rustix::process::{Pid, PidfdFlags, PidfdGetfdFlags, pidfd_getfd, pidfd_open};
    let pid = Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    let pidfd = pidfd_open(pid, PidfdFlags::empty()).unwrap();
    let mut found = Vec::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd", pid = pid.as_raw_pid())).unwrap() {
        let entry = entry.unwrap();
        let is_socket = std::fs::read_link(entry.path())
            .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"));
        let Ok(number) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if !is_socket {
            continue;
        }
        let Ok(copy) = pidfd_getfd(&pidfd, number, PidfdGetfdFlags::empty()) else {
            continue;
        };
        let stream = TcpStream::from(copy);
        if let (Ok(local), Ok(_peer)) = (stream.local_addr(), stream.peer_addr()) {
            found.push((local.port(), stream));
        }
    }
    found
}

#[test]
fn every_accepted_tcp_connection_has_nodelay() {
    let omni = Omni::builder().args(&TCP_LISTENERS).start();
    let mut ports = Vec::new();
    for (listener, target) in targets(&omni).into_iter().skip(1) {
        let Target::Tcp(address) = target else {
            unreachable!()
        };
        // A whole request and its answer: the connection was accepted and served.
        let mut conn = target.connect(Duration::from_secs(5));
        conn.write_all(b"GET /v1/status HTTP/1.1\r\nHost: omni\r\n\r\n")
            .unwrap();
        let mut head = [0u8; 12];
        conn.read_exact(&mut head).unwrap();
        ports.push((listener, address.port(), conn));
    }
    let accepted = daemon_tcp_connections(omni.pid());
    for (listener, port, _conn) in &ports {
        let (_, socket) = accepted
            .iter()
            .find(|(local, _)| local == port)
            .unwrap_or_else(|| panic!("{listener}: no accepted connection on port {port}"));
        // The head and the first event of a streamed answer are two writes: without
        // TCP_NODELAY the second waits for the client's delayed acknowledgement (~40 ms).
        assert!(socket.nodelay().unwrap(), "{listener}: no TCP_NODELAY");
    }
}
