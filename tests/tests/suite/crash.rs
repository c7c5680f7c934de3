//! Crashes in the middle of many commits: four clients send to four sessions while the
//! daemon is killed with SIGKILL, again and again. After each restart every acknowledged
//! turn is there as it was acknowledged, no session reads as damaged, and every session
//! takes the next send (a change a crash cut short is written over).

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use omni_tests::harness::{Omni, omnictl_bin};
use serde_json::Value;

/// One acknowledged send: the session, the prompt's node and text, the answer's node.
struct Acked {
    session: String,
    prompt_node: u64,
    prompt: String,
    answer_node: u64,
}

/// Sends prompts to `session` until `stop`, reporting each acknowledged one.
fn keep_sending(
    socket: &std::path::Path,
    session: &str,
    stop: &AtomicBool,
    acked: &mpsc::Sender<Acked>,
) {
    let mut n = 0;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let prompt = format!("{session} prompt {n}");
        let output = Command::new(omnictl_bin())
            .arg("--socket")
            .arg(socket)
            .args(["--no-wait", "--json", "send", "-s", session, &prompt])
            .output()
            .unwrap();
        if !output.status.success() {
            continue;
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        let _ = acked.send(Acked {
            session: session.to_string(),
            prompt_node: last["prompt_node"].as_u64().unwrap(),
            prompt,
            answer_node: last["node"].as_u64().unwrap(),
        });
    }
}

#[test]
fn acknowledged_turns_survive_kill_9_in_the_middle_of_many_commits() {
    let mut omni = Omni::start();
    let sessions: Vec<String> = (0..4).map(|_| omni.new_session()).collect();
    let mut all_acked = Vec::new();
    for _round in 0..5 {
        let stop = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel();
        std::thread::scope(|scope| {
            for session in &sessions {
                let (socket, tx, stop) = (omni.socket.clone(), tx.clone(), &stop);
                scope.spawn(move || keep_sending(&socket, session, stop, &tx));
            }
            // Kill once a dozen sends were acknowledged this round: the other clients are
            // mid-commit by then.
            omni.kill9_after(12, &rx, &mut all_acked, &stop);
        });
        all_acked.extend(rx.try_iter());
        omni.restart();
        for session in &sessions {
            let history = omni.history_of(session);
            assert!(
                history["damaged"].is_null(),
                "{session}: {}",
                history["damaged"]
            );
            let entries = history["entries"].as_array().unwrap();
            for acked in all_acked.iter().filter(|a| &a.session == session) {
                let prompt = &entries[acked.prompt_node as usize - 1];
                assert_eq!(prompt["text"], acked.prompt.as_str());
                let answer = &entries[acked.answer_node as usize - 1];
                assert_eq!(answer["role"], "model");
                assert_eq!(answer["parent"], acked.prompt_node);
            }
            omni.ctl(&["send", "-s", session, "after the crash"]).ok();
        }
    }
    assert!(all_acked.len() >= 60);
}
