//! Moving a store: `omnid store copy` from the store omnid 0.1.0 wrote (sled) into a
//! PostgreSQL database and back into a new data directory gives the same histories, heads
//! and branches on each; a copy run again adds nothing; a source that does not exist, or
//! a session that differs in both, is refused by name.

use std::path::Path;

use omni_tests::harness::{CtlOutput, Omni, copy_tree, omnid_bin};
use omni_tests::postgres::PgCluster;
use serde_json::Value;

fn fixture_store() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/store-0.1.0/store")
}

/// Runs `omnid store copy` with `args`.
fn copy(args: &[&str]) -> CtlOutput {
    let out = std::process::Command::new(omnid_bin())
        .args(["store", "copy"])
        .args(args)
        .output()
        .unwrap();
    CtlOutput {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into(),
        stderr: String::from_utf8_lossy(&out.stderr).into(),
    }
}

/// Every session's history (the tree drawn, every entry whole) and branches, by id.
fn everything(omni: &Omni) -> Vec<(String, Value, Value)> {
    let listed = omni.ctl(&["--json", "sessions"]).ok().json();
    let mut all: Vec<(String, Value, Value)> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let id = s["id"].as_str().unwrap().to_string();
            let history = omni.ctl(&["--json", "history", "-s", &id, "--full"]).ok().json();
            let branches = omni.ctl(&["--json", "branches", "-s", &id]).ok().json();
            (id, history, branches)
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

#[test]
fn a_0_1_0_store_copied_to_postgres_and_back_reads_the_same_and_a_second_copy_adds_nothing() {
    let cluster = PgCluster::start();
    let password = cluster.password_file();
    let password = password.to_str().unwrap();
    let work = tempfile::tempdir().unwrap();
    let original = work.path().join("original");
    copy_tree(&fixture_store(), &original);
    let original = original.to_str().unwrap();
    let before = {
        let mut omni = Omni::builder().data_from(&fixture_store()).start();
        let seen = everything(&omni);
        omni.stop();
        seen
    };
    assert_eq!(before.len(), 4);
    let url = cluster.url();

    let first = copy(&["--from", original, "--to", &url, "--to-password-file", password]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout.contains("copied 4 sessions"), "{}", first.stdout);
    assert!(!first.stdout.contains(cluster.password()), "{}", first.stdout);
    let again = copy(&["--from", original, "--to", &url, "--to-password-file", password]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("copied 0 sessions"), "{}", again.stdout);
    assert!(again.stdout.contains("4 were there already"), "{}", again.stdout);
    assert!(again.stdout.contains("the destination 4"), "{}", again.stdout);

    let mut on_postgres = cluster.omnid("copied").start();
    assert_eq!(everything(&on_postgres), before, "the same on PostgreSQL");
    on_postgres.stop();

    let back = work.path().join("back");
    let back = back.to_str().unwrap();
    let home = copy(&["--from", &url, "--from-password-file", password, "--to", back]);
    assert_eq!(home.code, 0, "{}", home.stderr);
    assert!(home.stdout.contains("copied 4 sessions"), "{}", home.stdout);
    let mut back_home = Omni::builder().data_from(Path::new(back)).start();
    assert_eq!(everything(&back_home), before, "the same back in a data directory");
    back_home.stop();

    let nowhere = work.path().join("nowhere");
    let refused = copy(&["--from", nowhere.to_str().unwrap(), "--to", back]);
    assert_ne!(refused.code, 0);
    assert!(refused.stderr.contains("no data directory at"), "{}", refused.stderr);
}

#[test]
fn a_shared_store_copied_into_another_brings_its_diagnostic_records() {
    use omni_tests::fake_gemini::Reply;
    let (from, to) = (PgCluster::start(), PgCluster::start());
    let (from_password, to_password) = (from.password_file(), to.password_file());
    let omni = from.omnid("alpha").start();
    let session = omni.new_session();
    let refusal = "Request contains an invalid argument.";
    omni.fake()
        .push([Reply::error(400, "INVALID_ARGUMENT", refusal)]);
    assert_ne!(omni.ctl(&["send", "-s", &session, "refused"]).code, 0);
    let listed = omni.ctl(&["--json", "logs", "list"]).ok().json();
    let id = listed["errors"][0]["id"].as_str().unwrap().to_string();

    let (from_url, to_url) = (from.url(), to.url());
    let copied = copy(&[
        "--from",
        &from_url,
        "--from-password-file",
        from_password.to_str().unwrap(),
        "--to",
        &to_url,
        "--to-password-file",
        to_password.to_str().unwrap(),
    ]);
    assert_eq!(copied.code, 0, "{}", copied.stderr);
    assert!(copied.stdout.contains("1 diagnostic records"), "{}", copied.stdout);
    let other = to.omnid("beta").start();
    let listed = other.ctl(&["--json", "logs", "list", "-s", &session]).ok().json();
    assert_eq!(listed["errors"][0]["id"], id.as_str(), "{listed}");
}
