//! Stores written straight through the daemon's own store code, as a bug, a failing disk
//! or an older version could have left them, then served by the real omnid: a history that
//! breaks the API's rules is caught before any request, and a session whose records
//! disagree is reported as damaged, stays readable and refuses changes alone.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::path::Path;

use omni_tests::harness::Omni;
use omnid::model::{MoveKind, MoveRecord, NodeRecord, Part, PartContent, Role, SessionRecord};
use omnid::store::{Change, Store};

fn api_errors_log(omni: &Omni) -> String {
    std::fs::read_to_string(omni.log_dir.join("api_errors.log")).unwrap_or_default()
}

/// What one stored change holds: the session's record after it, and a node and a move.
pub type Stored = (SessionRecord, Option<NodeRecord>, Option<MoveRecord>);

/// Opens the store in `data_dir` (the daemon must be stopped), hands `session`'s record to
/// `changes`, and commits every change it returns, in order.
pub fn write_into_store(
    data_dir: &Path,
    session: &str,
    changes: impl FnOnce(SessionRecord) -> Vec<Stored>,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let store = Store::open(data_dir).expect("the stopped daemon's store");
        let id = uuid::Uuid::parse_str(session).expect("a session id");
        let record = store
            .session(&id)
            .await
            .expect("a readable record")
            .expect("the session exists");
        for (record, node, mv) in changes(record) {
            let change = Change {
                session: &record,
                node: node.as_ref(),
                mv: mv.as_ref(),
                recorded: None,
                fence: None,
            };
            store.commit(&change).await.expect("the change is stored");
        }
        store.close().expect("the store lets go of its directory");
    });
}

/// Writes straight into the stopped daemon's store a history that breaks the API's rules:
/// a model turn with two calls answered by one result.
fn write_poisoned_history(data_dir: &Path, session: &str) {
    let part = |content| Part {
        content,
        thought_signature: None,
    };
    let call = |name: &str| {
        part(PartContent::FunctionCall {
            id: None,
            name: name.into(),
            args_json: "{}".into(),
        })
    };
    let nodes = [
        (Role::User, vec![Part::text("weather and time?")]),
        (Role::Model, vec![call("get_weather"), call("get_time")]),
        (
            Role::Tool,
            vec![part(PartContent::FunctionResponse {
                id: None,
                name: "get_weather".into(),
                response_json: r#"{"output":1}"#.into(),
            })],
        ),
    ];
    write_into_store(data_dir, session, |mut record| {
        let mut changes = Vec::new();
        for (i, (role, parts)) in nodes.into_iter().enumerate() {
            let n = i as u64 + 1;
            record.nodes = n;
            record.moves = n;
            record.head = n;
            let node = NodeRecord {
                id: n,
                parent: n - 1,
                role,
                parts,
                created_at_ms: 1,
                model: None,
            };
            let mv = MoveRecord {
                seq: n,
                kind: MoveKind::Prompt,
                from: n - 1,
                to: n,
                at_ms: 1,
                prev_redoable: None,
                redoes: None,
            };
            changes.push((record.clone(), Some(node), Some(mv)));
        }
        changes
    });
}

#[test]
fn a_preflight_violation_is_caught_without_any_http_request() {
    let mut omni = Omni::start();
    let session = omni.ctl(&["--json", "new"]).ok().json()["session"]
        .as_str()
        .unwrap()
        .to_string();
    omni.kill9();
    write_poisoned_history(&omni.data_dir, &session);
    omni.restart();

    let reason = "node 2 (model) calls 2 functions (get_weather, get_time) but node 3 (tool) answers 1 \
                  (get_weather) (`recover --deep` goes back to the start)";
    omni.ctl(&["send", "and now?"]).fails(
        3,
        &["preflight validation refused the request", reason, "--deep"],
    );
    assert_eq!(omni.fake().request_count(), 0, "nothing reached the API");
    let log = api_errors_log(&omni);
    assert!(log.contains("phase preflight, class preflight"), "{log}");
    assert!(
        log.contains("Response: none (the request was not sent: preflight validation)"),
        "{log}"
    );
    assert!(
        log.contains("and now?"),
        "the snapshot holds what would have been sent: {log}"
    );

    // Deep rollback takes the whole poisoned round out (not just the newest prompt); the
    // session works again.
    omni.ctl(&["recover", "--deep"]).ok();
    assert_eq!(omni.ctl(&["--json", "history"]).ok().json()["head"], 0);
    omni.ctl(&["send", "a fresh start"]).ok();
    assert_eq!(omni.fake().request_count(), 1);
}

/// Writes, into the stopped daemon's store, a session whose record says its head is node
/// 7 while it has two nodes.
fn damage(data_dir: &Path, session: &str) {
    write_into_store(data_dir, session, |mut record| {
        record.head = 7;
        vec![(record, None, None)]
    });
}

#[test]
fn a_damaged_session_is_reported_readable_and_refuses_changes_alone() {
    let mut omni = Omni::start();
    let new_session = |omni: &Omni| {
        let id = omni.ctl(&["--json", "new"]).ok().json()["session"].clone();
        id.as_str().unwrap().to_string()
    };
    let broken = new_session(&omni);
    omni.ctl(&["send", "-s", &broken, "remember this"]).ok();
    let healthy = new_session(&omni);
    omni.ctl(&["send", "-s", &healthy, "all fine"]).ok();
    omni.kill9();
    damage(&omni.data_dir, &broken);
    omni.restart();

    let problem = "its head is node 7, which does not exist";
    // Sessions other than the current one are checked in the background once omnid serves.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !omni.daemon_stderr().contains("session damaged") && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let log = omni.daemon_stderr();
    assert!(
        log.contains(&format!("session damaged: {problem}")),
        "{log}"
    );
    assert!(log.contains(&broken), "{log}");

    let listing = omni.ctl(&["sessions"]).ok().stdout;
    assert!(listing.contains("[damaged]"), "{listing}");
    let sessions = omni.ctl(&["--json", "sessions"]).ok().json();
    let entry = |id: &str| {
        sessions["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(entry(&broken)["damaged"], problem);
    assert!(entry(&healthy)["damaged"].is_null());

    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["damaged_sessions"][0]["id"], broken.as_str());
    assert_eq!(status["damaged_sessions"][0]["reason"], problem);
    let text = omni.ctl(&["status"]).ok().stdout;
    assert!(
        text.contains(&format!("damaged:  session {broken}")),
        "{text}"
    );

    // Readable: the transcript is shown as stored, with what is wrong.
    let history = omni.ctl(&["--json", "history", "-s", &broken]).ok().json();
    assert_eq!(history["damaged"], problem);
    assert_eq!(history["entries"].as_array().unwrap().len(), 2);
    assert_eq!(history["entries"][0]["text"], "remember this");
    let text = omni.ctl(&["history", "-s", &broken]).ok().stdout;
    assert!(text.contains("this session is damaged"), "{text}");
    omni.ctl(&["logs", "export", "-s", &broken, "-o", "-"]).ok();

    // No changes: sends and moves are refused with the reason; nothing reaches the API.
    let requests = omni.fake().request_count();
    omni.ctl(&["send", "-s", &broken, "more"])
        .fails(1, &["is damaged in the store", problem, "takes no changes"]);
    omni.ctl(&["undo", "-s", &broken]).fails(1, &["is damaged"]);
    assert_eq!(omni.fake().request_count(), requests);

    // The other session goes on.
    omni.ctl(&["send", "-s", &healthy, "still fine?"]).ok();
    let history = omni.ctl(&["--json", "history", "-s", &healthy]).ok().json();
    assert_eq!(history["entries"].as_array().unwrap().len(), 4);
}
