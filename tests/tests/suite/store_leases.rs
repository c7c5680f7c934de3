//! One writer per session across omnid sharing a store: while one answers a turn, the
//! others' changes are refused at once as busy, naming it; the moment it is done, any of
//! them takes the session; one killed mid-turn holds it no longer than its lease; and one
//! paused past its lease can never write after another took over: its client hears the
//! turn was lost.

use std::time::{Duration, Instant};

use omni_tests::harness::{CtlOutput, Omni, Signal};
use omni_tests::postgres::PgCluster;
use omni_tests::scenario::held_answer;

use super::store_postgres::turns;

/// The texts of a session's history, in order.
fn texts(omni: &Omni, session: &str) -> Vec<String> {
    turns(omni, session).into_iter().map(|t| t.1).collect()
}

fn refused_as_busy_on(said: &CtlOutput, holder: &str) {
    assert_ne!(said.code, 0, "{}", said.stdout);
    let busy = format!("busy on omnid \"{holder}\"");
    assert!(said.stderr.contains(&busy), "{}", said.stderr);
}

/// Sends on `omni` until the send is taken (the holder's lease ran out), at most `within`.
fn send_once_free(omni: &Omni, session: &str, prompt: &str, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let said = omni.ctl(&["send", "-s", session, prompt]);
        if said.code == 0 {
            return;
        }
        assert!(said.stderr.contains("busy on omnid"), "{}", said.stderr);
        assert!(Instant::now() < deadline, "still busy: {}", said.stderr);
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_change_on_another_omnid_while_one_answers_is_refused_naming_it_then_taken_at_once() {
    let cluster = PgCluster::start();
    // A lease of 1 s, renewed while alpha's turn lasts.
    let alpha = cluster.omnid("alpha").args(&["--store-lease-secs", "1"]).start();
    let beta = cluster.omnid("beta").start();
    let gamma = cluster.omnid("gamma").start();
    let session = alpha.new_session();
    alpha.ctl(&["send", "-s", &session, "first"]).ok();
    let gate = held_answer(&alpha);
    let mut slow = alpha.spawn_ctl(&["send", "-s", &session, "a slow question"]);
    slow.read_texts(1);

    refused_as_busy_on(&beta.ctl(&["send", "-s", &session, "from beta"]), "alpha");
    refused_as_busy_on(&gamma.ctl(&["back", "-s", &session]), "alpha");
    let renewed = Instant::now() + Duration::from_millis(2500);
    while Instant::now() < renewed {
        refused_as_busy_on(&beta.ctl(&["rename", "-s", &session, "mine"]), "alpha");
    }

    gate.open();
    slow.finish().ok();
    // Let go before alpha's client heard: beta takes the session at once.
    beta.ctl(&["send", "-s", &session, "from beta"]).ok();
    gamma.ctl(&["send", "-s", &session, "from gamma"]).ok();
    let said = texts(&alpha, &session);
    assert_eq!(said.len(), 8, "{said:?}");
    assert_eq!(
        [&said[2], &said[4], &said[6]],
        ["a slow question", "from beta", "from gamma"]
    );
    assert_eq!(said[3], "partial answer never finished");
}

#[test]
fn an_omnid_killed_mid_turn_holds_the_session_no_longer_than_its_lease() {
    let cluster = PgCluster::start();
    let lease = ["--store-lease-secs", "3"];
    let mut alpha = cluster.omnid("alpha").args(&lease).start();
    let beta = cluster.omnid("beta").start();
    let session = alpha.new_session();
    let _gate = held_answer(&alpha);
    let mut slow = alpha.spawn_ctl(&["send", "-s", &session, "asked on alpha"]);
    slow.read_texts(1);
    alpha.kill9();
    refused_as_busy_on(&beta.ctl(&["send", "-s", &session, "from beta"]), "alpha");

    send_once_free(&beta, &session, "from beta", Duration::from_secs(15));
    let said = texts(&beta, &session);
    // Alpha's prompt was stored before it died: beta's turn answers both.
    assert_eq!(said[..2], ["asked on alpha", "from beta"], "{said:?}");
    assert_eq!(said.len(), 3, "{said:?}");
}

#[test]
fn an_omnid_paused_past_its_lease_never_writes_after_another_took_over() {
    let cluster = PgCluster::start();
    let lease = ["--store-lease-secs", "1"];
    let alpha = cluster.omnid("alpha").args(&lease).start();
    let beta = cluster.omnid("beta").start();
    let session = alpha.new_session();
    let gate = held_answer(&alpha);
    let mut slow = alpha.spawn_ctl(&["send", "-s", &session, "asked on alpha"]);
    slow.read_texts(1);
    alpha.signal(Signal::STOP);
    send_once_free(&beta, &session, "from beta", Duration::from_secs(15));
    alpha.signal(Signal::CONT);
    gate.open();

    let lost = slow.finish();
    assert_ne!(lost.code, 0, "{}", lost.stdout);
    assert!(
        lost.stderr.contains("taken over by omnid \"beta\""),
        "{}",
        lost.stderr
    );
    let said = texts(&beta, &session);
    assert_eq!(said[..2], ["asked on alpha", "from beta"], "{said:?}");
    assert_eq!(said.len(), 3, "alpha's answer was not written: {said:?}");
    assert!(!said.iter().any(|t| t.contains("never finished")), "{said:?}");
    // Alpha reads the session again, and goes on from beta's turn.
    alpha.ctl(&["send", "-s", &session, "alpha again"]).ok();
    assert_eq!(texts(&beta, &session).len(), 5);
}
