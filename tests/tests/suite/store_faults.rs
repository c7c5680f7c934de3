//! PostgreSQL restarted under load: two omnid, four sessions sending at once; while the
//! database is away each send fails quickly, naming it, and once it is back every send goes
//! through again, with every turn acknowledged before, during or after there on both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use omni_tests::harness::Omni;
use omni_tests::postgres::PgCluster;

use super::store_postgres::turns;

/// What one sender saw: the prompts acknowledged, and the failures' messages.
#[derive(Default)]
struct Seen {
    acknowledged: Vec<String>,
    failures: Vec<String>,
}

/// Sends on `session` through `omni` until `stop`, noting what came of each.
fn keep_sending(omni: &Omni, session: &str, stop: &AtomicBool, seen: &Mutex<Seen>) {
    let mut n = 0;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let prompt = format!("{session} turn {n}");
        let said = omni.ctl(&["send", "-s", session, &prompt]);
        let mut seen = seen.lock().unwrap();
        if said.code == 0 {
            seen.acknowledged.push(prompt);
        } else {
            seen.failures.push(said.stderr);
            drop(seen);
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn count(seen: &[Arc<Mutex<Seen>>], of: impl Fn(&Seen) -> usize) -> usize {
    seen.iter().map(|s| of(&s.lock().unwrap())).sum()
}

/// Waits until `ready` holds of what the senders saw, at most 30 s.
fn until(seen: &[Arc<Mutex<Seen>>], what: &str, ready: impl Fn(&[Arc<Mutex<Seen>>]) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready(seen) {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn postgres_restarted_under_load_loses_nothing_acknowledged() {
    let cluster = PgCluster::start();
    let omnid = [
        cluster.omnid("alpha").start(),
        cluster.omnid("beta").start(),
    ];
    let sessions: Vec<(usize, String)> = (0..4).map(|n| (n % 2, omnid[n % 2].new_session())).collect();
    let stop = AtomicBool::new(false);
    let seen: Vec<Arc<Mutex<Seen>>> = (0..4).map(|_| Arc::default()).collect();
    std::thread::scope(|scope| {
        for ((on, session), seen) in sessions.iter().zip(&seen) {
            let (omni, stop) = (&omnid[*on], &stop);
            scope.spawn(move || keep_sending(omni, session, stop, seen));
        }
        until(&seen, "20 turns before", |s| count(s, |s| s.acknowledged.len()) >= 20);
        cluster.stop();
        until(&seen, "a failure on every session", |s| {
            s.iter().all(|s| !s.lock().unwrap().failures.is_empty())
        });
        cluster.restart();
        let before = count(&seen, |s| s.acknowledged.len());
        until(&seen, "20 turns after", |s| count(s, |s| s.acknowledged.len()) >= before + 20);
        stop.store(true, Ordering::SeqCst);
    });

    let store = format!("127.0.0.1:{}", cluster.port());
    for ((on, session), seen) in sessions.iter().zip(&seen) {
        let seen = seen.lock().unwrap();
        for failure in &seen.failures {
            assert!(failure.contains(&store), "{failure}");
            assert!(!failure.contains(cluster.password()), "{failure}");
        }
        // Read on the other omnid: every acknowledged prompt is there, in order.
        let there: Vec<String> = turns(&omnid[1 - on], session)
            .into_iter()
            .filter(|(role, _)| role == "user")
            .map(|(_, text)| text)
            .collect();
        let mut rest = there.iter();
        for prompt in &seen.acknowledged {
            assert!(rest.any(|t| t == prompt), "{prompt} is missing from {there:?}");
        }
    }
}

/// A prompt of `kib` KiB that does not compress (so the database's files grow by about as
/// much).
fn incompressible(n: usize, kib: usize) -> String {
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
    let noise: String = (0..kib * 1024)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'!' + (state % 90) as u8)
        })
        .collect();
    format!("prompt {n}: {noise}")
}

#[test]
fn a_full_database_fails_sends_naming_it_keeps_what_was_acknowledged_and_takes_sends_again() {
    let cluster = PgCluster::start_with_small_wal();
    let omni = cluster.omnid("alpha").start();
    let session = omni.new_session();
    // No file of the database may grow past 3 MiB (a WAL segment is 1): the table holding
    // the prompts fills.
    cluster.stop();
    cluster.restart_with_file_limit(3 * 1024 * 1024);
    let store = format!("127.0.0.1:{}", cluster.port());
    let mut acknowledged = Vec::new();
    let refused = loop {
        let prompt = incompressible(acknowledged.len(), 96);
        let said = omni.ctl(&["send", "-s", &session, &prompt]);
        if said.code != 0 {
            break said;
        }
        acknowledged.push(prompt);
        assert!(acknowledged.len() < 1000, "the database never filled");
    };
    assert!(refused.stderr.contains(&store), "{}", refused.stderr);
    assert!(refused.stderr.contains("File too large"), "{}", refused.stderr);
    assert!(!refused.stderr.contains(cluster.password()), "{}", refused.stderr);

    // Room again: every acknowledged prompt is there, and sends go through.
    cluster.stop();
    cluster.restart();
    omni.ctl(&["send", "-s", &session, "room again"]).ok();
    let kept: Vec<String> = turns(&omni, &session)
        .into_iter()
        .filter(|(role, _)| role == "user")
        .map(|(_, text)| text)
        .collect();
    for prompt in &acknowledged {
        assert!(kept.contains(prompt), "an acknowledged prompt is missing");
    }
    assert_eq!(kept.last().map(String::as_str), Some("room again"));
}
