//! Live across omnid sharing a store: a follower on one sees a turn answered on another
//! stream in (the prompt, the text while it is still coming, the answer, each move), a
//! follower that arrives mid-answer sees it from its start; a turn committed on one is
//! found by the other's search, and a session purged on one leaves the other's index too.

use omni_tests::harness::{Omni, any_file_holds};
use omni_tests::postgres::PgCluster;
use omni_tests::proxy::eventually;
use omni_tests::scenario::held_answer;

/// The events' names, in order.
fn names(events: &[serde_json::Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["event"].as_str()).collect()
}

#[test]
fn a_follower_on_another_omnid_sees_the_turn_stream_in_and_every_move() {
    let cluster = PgCluster::start();
    let alpha = cluster.omnid("alpha").start();
    let beta = cluster.omnid("beta").start();
    let session = alpha.new_session();
    alpha.ctl(&["send", "-s", &session, "first"]).ok();

    let mut follower = beta.spawn_ctl(&["attach", "-s", &session]);
    follower.read_until("attached");
    let gate = held_answer(&alpha);
    let mut slow = alpha.spawn_ctl(&["send", "-s", &session, "a slow question"]);
    slow.read_texts(2);
    // The answer is held half-way on alpha: beta's follower has its start already (after
    // the first turn's events, which may reach it late).
    while follower.read_until("prompt_stored").last().unwrap()["node"] != 3 {}
    let streamed = follower.read_until("text");
    assert_eq!(names(&streamed), ["text"], "{streamed:?}");
    // One arriving now sees the answer from its start.
    let mut late = beta.spawn_ctl(&["attach", "-s", &session]);
    late.read_until("attached");
    let so_far = late.read_until("text");
    assert!(so_far.iter().any(|e| e["event"] == "prompt_stored"), "{so_far:?}");

    gate.open();
    slow.finish().ok();
    let answered = follower.read_until("answered");
    assert_eq!(answered.last().unwrap()["node"], 4);
    let text: String = streamed
        .iter()
        .chain(&answered)
        .filter(|e| e["event"] == "text")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert_eq!(text, "partial answer never finished");
    late.read_until("answered");

    alpha.ctl(&["undo", "-s", &session]).ok();
    let moved = follower.read_until("moved");
    assert_eq!(moved.last().unwrap()["to"], 3);
    follower.interrupt();
    late.interrupt();
    // Beta's own turn goes on from what alpha did.
    beta.ctl(&["redo", "-s", &session]).ok();
    assert_eq!(alpha.history_of(&session)["head"], 4);
}

const PHRASE: &str = "zanzibarquetzalcoatl";

fn hits(omni: &Omni) -> usize {
    let found = omni.ctl(&["--json", "search", PHRASE]).ok().json();
    found["hits"].as_array().map_or(0, Vec::len)
}

#[test]
fn a_turn_committed_on_one_omnid_is_found_on_another_and_a_purge_leaves_both_indexes() {
    let cluster = PgCluster::start();
    let alpha = cluster.omnid("alpha").start();
    let beta = cluster.omnid("beta").start();
    assert_eq!(hits(&beta), 0);
    let session = alpha.new_session();
    let prompt = format!("tell me of {PHRASE} {}", "x".repeat(2000));
    alpha.ctl(&["send", "-s", &session, &prompt]).ok();
    eventually("beta's search finds alpha's turn", || hits(&beta) > 0);
    let index = beta.dir().join("data").join("search");
    assert!(any_file_holds(&index, PHRASE.as_bytes()), "beta's index holds it");

    alpha.ctl(&["purge", "-s", &session, "--yes"]).ok();
    eventually("beta's index lets go of the purged session", || {
        !any_file_holds(&index, PHRASE.as_bytes())
    });
    assert_eq!(hits(&beta), 0);
}

#[test]
fn a_failure_recorded_on_one_omnid_is_listed_exported_and_recovered_on_another() {
    use omni_tests::fake_gemini::Reply;
    use omni_tests::harness::TEST_API_KEY;
    let cluster = PgCluster::start();
    let alpha = cluster.omnid("alpha").start();
    let beta = cluster.omnid("beta").start();
    let session = alpha.new_session();
    let refusal = "Request contains an invalid argument.";
    alpha
        .fake()
        .push([Reply::error(400, "INVALID_ARGUMENT", refusal)]);
    let failed = alpha.ctl(&["send", "-s", &session, "refused on alpha"]);
    assert_ne!(failed.code, 0, "{}", failed.stdout);

    let listed = beta.ctl(&["--json", "logs", "list", "-s", &session]).ok().json();
    let errors = listed["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{listed}");
    let id = errors[0]["id"].as_str().unwrap();
    let bundle = beta.ctl(&["logs", "export", "-s", &session, "-o", "-"]).ok().stdout;
    assert!(!bundle.contains(TEST_API_KEY));
    let bundle: serde_json::Value = serde_json::from_str(&bundle).unwrap();
    assert_eq!(bundle["errors"][0]["id"], id);
    let entry = bundle["log_entries"][0].as_str().unwrap();
    assert!(entry.contains(&format!("ERROR: error {id},")), "{entry}");
    assert!(!cluster_holds_key(&cluster), "the key never reaches the database");

    // The session waits for a recovery choice, made on beta.
    beta.ctl(&["recover", "-s", &session, "--ignore"]).ok();
    beta.ctl(&["send", "-s", &session, "and on from beta"]).ok();

    // A purge on beta takes alpha's record out of the database too.
    beta.ctl(&["purge", "-s", &session, "--yes"]).ok();
    let listed = alpha.ctl(&["--json", "logs", "list"]).ok().json();
    assert_eq!(listed["errors"].as_array().unwrap().len(), 0, "{listed}");
}

/// Whether any diagnostic record in the cluster's database holds the tests' API key.
fn cluster_holds_key(cluster: &PgCluster) -> bool {
    super::store_postgres::on_database(cluster, async |client| {
        let key = omni_tests::harness::TEST_API_KEY;
        let sql = "SELECT count(*) FROM diagnostics
                   WHERE position($1::bytea IN record) > 0 OR position($2 IN entry) > 0";
        let row = client.query_one(sql, &[&key.as_bytes(), &key]).await.unwrap();
        row.get::<_, i64>(0) > 0
    })
}

#[test]
fn a_restarted_omnid_catches_its_search_up_from_the_change_feed() {
    let cluster = PgCluster::start();
    let alpha = cluster.omnid("alpha").start();
    let mut beta = cluster.omnid("beta").start();
    eventually("beta's first start indexes the whole store", || {
        beta.daemon_stderr().contains("the search index is caught up with the store")
    });
    beta.stop();
    let session = alpha.new_session();
    alpha.ctl(&["send", "-s", &session, &format!("while beta was away: {PHRASE}")]).ok();
    beta.restart();
    eventually("beta's search finds the turn made while it was away", || hits(&beta) > 0);
    let stderr = beta.daemon_stderr();
    assert!(
        stderr.contains("the search index caught up from the change feed sessions=1"),
        "{stderr}"
    );
}

#[test]
fn a_conversation_recorded_through_one_omnid_s_proxy_goes_on_through_another_s() {
    use omni_tests::proxy::{converse, recorded, start};
    let cluster = PgCluster::start();
    let password = cluster.password_file();
    let (url, password) = (cluster.url(), password.display().to_string());
    let on = |name: &'static str| {
        let flags = ["--store-url", &url, "--store-password-file", &password];
        let mut flags = flags.to_vec();
        flags.extend(["--instance-name", name]);
        start(&flags)
    };
    let ((_alpha, alpha_api), (beta, beta_api)) = (on("alpha"), on("beta"));
    let first = converse(&alpha_api, &[("user", "hi")]);
    converse(&beta_api, &[("user", "hi"), ("model", &first), ("user", "more")]);
    let sessions = recorded(&beta);
    assert_eq!(sessions.len(), 1, "one conversation, one session: {sessions:?}");
    assert_eq!(sessions[0]["nodes"], 4);
}
