//! Crashes right after proxied answers end: four clients start new conversations through
//! the Gemini-compatible proxy, two streamed and two asking for whole answers, while the
//! daemon is killed with SIGKILL, again and again. After each restart every answer a
//! client received in full (its finish reason included) is in the recorded sessions, under
//! its prompt.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use omni_tests::harness::{Omni, TEST_API_KEY};
use omni_tests::proxy::{STREAM, WHOLE, proxy_status, recorded, start};
use serde_json::json;

/// One request to `path` over a plain TCP connection; what came back, raw (cut short if
/// the daemon died), or `None` if it could not be sent.
fn ask_once(address: SocketAddr, path: &str, prompt: &str) -> Option<String> {
    let mut stream = TcpStream::connect(address).ok()?;
    let body = json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}]}).to_string();
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: omnid\r\nx-goog-api-key: {TEST_API_KEY}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    Some(String::from_utf8_lossy(&raw).into_owned())
}

/// Starts new conversations until `stop` (streamed for even clients, whole answers for odd
/// ones), reporting each prompt whose answer arrived whole: its finish reason reached the
/// client.
fn keep_asking(
    address: SocketAddr,
    client: usize,
    stop: &AtomicBool,
    acked: &mpsc::Sender<String>,
) {
    let path = if client % 2 == 0 { STREAM } else { WHOLE };
    let mut n = 0;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let prompt = format!("client {client} prompt {n}");
        let Some(raw) = ask_once(address, path, &prompt) else {
            continue;
        };
        if raw.starts_with("HTTP/1.1 200") && raw.contains("\"finishReason\"") {
            let _ = acked.send(prompt);
        }
    }
}

/// The prompts recorded with an answer under them, over every recorded session.
fn answered_prompts(omni: &Omni) -> HashSet<String> {
    let mut answered = HashSet::new();
    for session in recorded(omni) {
        let history = omni.history_of(session["id"].as_str().unwrap());
        assert!(history["damaged"].is_null(), "{}", history["damaged"]);
        let entries = history["entries"].as_array().unwrap();
        for answer in entries.iter().filter(|e| e["role"] == "model") {
            let Some(parent) = answer["parent"].as_u64() else {
                continue;
            };
            let prompt = &entries[parent as usize - 1];
            let said = format!("You said: \"{}\"", prompt["text"].as_str().unwrap());
            assert!(answer["text"].as_str().unwrap().contains(&said), "{answer}");
            answered.insert(prompt["text"].as_str().unwrap().to_string());
        }
    }
    answered
}

#[test]
fn answers_received_whole_through_the_proxy_survive_kill_9() {
    let (mut omni, _api) = start(&[]);
    let mut all_acked = Vec::new();
    for _round in 0..4 {
        let address: SocketAddr = proxy_status(&omni)["address"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let stop = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|scope| {
            for client in 0..4 {
                let (tx, stop) = (tx.clone(), &stop);
                scope.spawn(move || keep_asking(address, client, stop, &tx));
            }
            // Kill the moment a client has a dozen whole answers this round: the last one
            // has only just arrived, and the others are streaming.
            omni.kill9_after(12, &rx, &mut all_acked, &stop);
        });
        all_acked.extend(rx.try_iter());
        omni.restart();
        // A conversation whose first turns a crash cut short before they were stored is
        // not listed as an empty session.
        let listed = omni
            .ctl(&["--json", "sessions", "--limit", "1000"])
            .ok()
            .json();
        let ghosts: Vec<&serde_json::Value> = listed["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["nodes"] == 0)
            .collect();
        assert!(
            ghosts.is_empty(),
            "sessions with no turn are listed: {ghosts:?}"
        );
        let answered = answered_prompts(&omni);
        let missing: Vec<&String> = all_acked
            .iter()
            .filter(|p| !answered.contains(*p))
            .collect();
        assert!(
            missing.is_empty(),
            "answers the clients had whole are not recorded: {missing:?}"
        );
    }
    assert!(all_acked.len() >= 48);
    let whole = |p: &&String| p.starts_with("client 1 ") || p.starts_with("client 3 ");
    assert!(
        all_acked.iter().any(|p| whole(&p)) && !all_acked.iter().all(|p| whole(&p)),
        "whole answers and streamed ones were both acknowledged"
    );
}
