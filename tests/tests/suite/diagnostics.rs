//! Diagnostics: the failing request, the response and the history are on disk (synced)
//! before the client hears of the failure; keys never are; the log rotates; bundles and
//! replays let a user show a provider bug.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use omni_tests::fake_gemini::Reply;
use omni_tests::harness::{Omni, TEST_API_KEY};
use omni_tests::scenario::{MISMATCH, poisoned_by_a_400};
use serde_json::Value;

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

fn records(omni: &Omni) -> Vec<Value> {
    files_under(&omni.log_dir.join("errors"))
        .iter()
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

fn api_errors_log(omni: &Omni) -> String {
    std::fs::read_to_string(omni.log_dir.join("api_errors.log")).unwrap_or_default()
}

fn poisoned(omni: &Omni, prompt: &str) -> String {
    let (session, failed) = poisoned_by_a_400(omni, prompt);
    failed.fails(3, &["needs recovery"]);
    session
}

#[test]
fn a_failure_is_logged_with_the_request_the_response_and_the_history_and_no_key() {
    let omni = Omni::start();
    // The prompt holds the API key, so the snapshot has something to redact.
    let session = poisoned(
        &omni,
        &format!("weather in Paris? my key is {TEST_API_KEY}"),
    );

    let log = api_errors_log(&omni);
    let header = format!(
        "session {session}, node 3, attempt 1/5, phase connect, class mismatched_function_parts"
    );
    assert!(log.contains(&header), "{log}");
    assert!(
        log.contains(&format!(
            "Message: the model API answered HTTP 400 INVALID_ARGUMENT: {MISMATCH}"
        )),
        "{log}"
    );
    assert!(
        log.contains("Response: HTTP 400; content-type: application/json"),
        "{log}"
    );
    assert!(
        log.contains("] Conversation History Snapshot\nData: {\"contents\""),
        "{log}"
    );
    // The snapshot holds the prompt, the call with its signature, and the tool result.
    assert!(
        log.contains("weather in Paris? my key is [REDACTED]"),
        "{log}"
    );
    assert!(
        log.contains("\"thoughtSignature\":\"sig-get_weather\""),
        "{log}"
    );
    assert!(log.contains("\"functionResponse\""), "{log}");

    let records = records(&omni);
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record["class"], "mismatched_function_parts");
    assert_eq!(record["session"], session.as_str());
    assert_eq!(record["response"]["status"], 400);
    assert_eq!(
        record["request"]["body"]["contents"][2]["parts"][0]["functionResponse"]["name"],
        "get_weather"
    );
    assert_eq!(record["request"]["headers"]["x-goog-api-key"], "[REDACTED]");
    assert_eq!(record["attempts"][0]["status"], 400);
    assert_eq!(record["daemon"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(record["config"]["model"], "fake-model");
    let id = record["id"].as_str().unwrap();
    assert!(
        log.contains(&format!("ERROR: error {id}, ")),
        "the entry and the record share the id"
    );
    let path = files_under(&omni.log_dir.join("errors"))[0].clone();
    let date = &record["time"].as_str().unwrap()[..10];
    assert_eq!(
        path,
        omni.log_dir
            .join("errors")
            .join(date)
            .join(&session)
            .join(format!("{id}.json"))
    );

    for file in files_under(&omni.log_dir) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            !text.contains(TEST_API_KEY),
            "the key leaked into {}",
            file.display()
        );
    }

    let path = omni.ctl(&["logs", "path"]).ok().stdout;
    assert_eq!(
        path.trim(),
        omni.log_dir.join("api_errors.log").display().to_string()
    );
    let list = omni.ctl(&["--json", "logs", "list"]).ok().json();
    assert_eq!(list["errors"][0]["id"], id);
    assert_eq!(list["errors"][0]["class"], "mismatched_function_parts");
}

#[test]
fn every_failed_attempt_with_a_status_is_logged_with_the_timeline() {
    let omni = Omni::builder()
        .args(&["--retry-initial-delay-ms", "10"])
        .start();
    omni.ctl(&["new"]).ok();
    let overloaded = || Reply::error(503, "UNAVAILABLE", "The model is overloaded.");
    omni.fake().push([overloaded(), overloaded()]);
    omni.ctl(&["send", "hi"]).ok();
    let mut records = records(&omni);
    records.sort_by_key(|r| r["attempt"].as_u64());
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["attempt"], 1);
    assert_eq!(records[1]["attempt"], 2);
    let timeline = records[1]["attempts"].as_array().unwrap();
    assert_eq!(timeline.len(), 2);
    assert_eq!(timeline[0]["status"], 503);
    assert!(timeline[0]["wait_ms"].as_u64().unwrap() > 0);
    assert_eq!(api_errors_log(&omni).matches("] ERROR: error ").count(), 2);
}

#[test]
fn the_log_rotates_before_it_passes_10_mb() {
    let omni = Omni::builder().args(&["--retry-max-attempts", "1"]).start();
    let big = "x".repeat(4_000_000);
    for _ in 0..3 {
        // A new session each time, so every request (and entry) is about 4 MB.
        omni.ctl(&["new"]).ok();
        omni.fake().push([Reply::error(
            500,
            "INTERNAL",
            "An internal error has occurred.",
        )]);
        omni.ctl_with_stdin(&["send", "-"], Some(&big))
            .fails(1, &["HTTP 500"]);
    }
    let archives: Vec<String> = std::fs::read_dir(&omni.log_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("api_errors-"))
        .collect();
    assert_eq!(archives.len(), 1, "{archives:?}");
    let name = &archives[0];
    assert!(
        name.ends_with("Z.log") && name.len() == "api_errors-20261122T010203Z.log".len(),
        "{name}"
    );
    let live = std::fs::metadata(omni.log_dir.join("api_errors.log"))
        .unwrap()
        .len();
    let archived = std::fs::metadata(omni.log_dir.join(name)).unwrap().len();
    assert!(archived <= 10_000_000 && archived > 8_000_000, "{archived}");
    assert!(live > 4_000_000 && live < 10_000_000, "{live}");
    assert_eq!(api_errors_log(&omni).matches("] ERROR: error ").count(), 1);
}

#[test]
fn export_writes_one_bundle_holding_the_error() {
    let omni = Omni::start();
    let session = poisoned(&omni, &format!("weather? my key is {TEST_API_KEY}"));
    let id = records(&omni)[0]["id"].as_str().unwrap().to_string();
    let target = omni.dir().join("bundle.json");
    let out = omni
        .ctl(&["logs", "export", "-o", target.to_str().unwrap()])
        .ok();
    assert_eq!(out.stdout.trim(), target.display().to_string());
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(!text.contains(TEST_API_KEY));
    let bundle: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(bundle["session"], session.as_str());
    assert_eq!(bundle["errors"][0]["id"], id.as_str());
    assert!(
        bundle["log_entries"][0]
            .as_str()
            .unwrap()
            .contains(&format!("ERROR: error {id}, "))
    );
    assert_eq!(bundle["transcript"]["entries"].as_array().unwrap().len(), 3);
    assert_eq!(bundle["daemon"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(bundle["daemon"]["config"]["api_key"], "set (redacted)");

    // By error id, into the current directory by default, under a name that says what
    // it is; written by omnictl, private to its user.
    let out = omni
        .ctl(&["--json", "logs", "export", "--error", &id[..20]])
        .ok()
        .json();
    let path = PathBuf::from(out["path"].as_str().unwrap());
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&format!("omni-bundle-{}", &session[..8])),
        "{name}"
    );
    let written = omni.dir().join(&path);
    assert_eq!(
        std::fs::metadata(&written).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(out["errors"], 1);
    assert!(
        !omni.log_dir.join("exports").exists(),
        "omnid wrote nothing itself"
    );
    // To standard output.
    let out = omni.ctl(&["logs", "export", "-o", "-"]).ok();
    let bundle: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(bundle["errors"][0]["id"], id.as_str());
}

#[test]
fn export_never_replaces_a_file_unless_forced_and_the_daemon_writes_nowhere() {
    let mut omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "keep me"]).ok();
    // The attack from the field test: the daemon's own store as the target.
    let db = omni.data_dir.join("db");
    let size = std::fs::metadata(&db).unwrap().len();
    omni.ctl(&["logs", "export", "-o", db.to_str().unwrap()])
        .fails(2, &["already exists", "--force"]);
    assert_eq!(
        std::fs::metadata(&db).unwrap().len(),
        size,
        "the store is untouched"
    );
    omni.ctl(&["send", "and me"]).ok();
    omni.kill9();
    omni.restart();
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(history["entries"].as_array().unwrap().len(), 4, "{history}");

    // An ordinary file is replaced only with --force, and then whole.
    let target = omni.dir().join("old.json");
    std::fs::write(&target, "precious").unwrap();
    let path = target.to_str().unwrap();
    omni.ctl(&["logs", "export", "-o", path])
        .fails(2, &["already exists"]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    omni.ctl(&["logs", "export", "-o", path, "--force"]).ok();
    let bundle: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(bundle["transcript"]["entries"].as_array().unwrap().len(), 4);
}

#[test]
fn export_with_force_never_writes_into_the_daemons_own_directories() {
    let mut omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "keep me"]).ok();
    let db = omni.data_dir.join("db");
    let link = omni.dir().join("shortcut");
    std::os::unix::fs::symlink(&omni.data_dir, &link).unwrap();
    let alias = omni.dir().join("alias.json");
    std::os::unix::fs::symlink(&db, &alias).unwrap();
    let log = omni.log_dir.join("api_errors.log");
    let targets = [
        db.clone(),
        omni.data_dir
            .join("..")
            .join(omni.data_dir.file_name().unwrap())
            .join("db"),
        link.join("db"),
        alias,
        omni.data_dir.join("bundle.json"),
        log.clone(),
    ];
    for target in &targets {
        let path = target.to_str().unwrap();
        let refused = omni
            .ctl(&["logs", "export", "-o", path, "--force"])
            .fails(2, &["inside omnid's", "directory"]);
        assert!(
            refused.stderr.contains("Choose a path outside"),
            "{}",
            refused.stderr
        );
    }
    assert!(!omni.data_dir.join("bundle.json").exists());
    assert!(
        !log.exists()
            || !std::fs::read_to_string(&log)
                .unwrap()
                .contains("transcript")
    );
    let head = std::fs::read(&db).unwrap();
    assert!(!head.starts_with(b"{"), "the store is no bundle");
    omni.kill9();
    omni.restart();
    let history = omni.ctl(&["--json", "history"]).ok().json();
    assert_eq!(history["entries"].as_array().unwrap().len(), 2, "{history}");
}

#[test]
fn replay_sends_the_recorded_request_again_without_touching_the_session() {
    let omni = Omni::start();
    poisoned(&omni, "weather in Paris?");
    let before = omni.ctl(&["--json", "history"]).ok().json();
    let id = omni.ctl(&["--json", "logs", "list"]).ok().json()["errors"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let failed_body = omni.fake().requests()[1].body.clone();

    omni.fake()
        .push([Reply::error(400, "INVALID_ARGUMENT", MISMATCH)]);
    let out = omni.ctl(&["replay", &id]).fails(1, &["still fails"]);
    assert!(
        out.stdout
            .contains("still fails (mismatched_function_parts)"),
        "{}",
        out.stdout
    );
    assert_eq!(
        omni.fake().requests()[2].body,
        failed_body,
        "exactly the recorded request"
    );

    let out = omni.ctl(&["replay", &id]).ok();
    assert!(out.stdout.contains("no longer happens"), "{}", out.stdout);
    assert_eq!(omni.ctl(&["--json", "history"]).ok().json(), before);
    omni.ctl(&["send", "still stuck?"])
        .fails(3, &["needs recovery"]);
    omni.ctl(&["replay", "nonexistent"])
        .fails(1, &["no recorded error matches"]);
}

#[test]
fn an_unwritable_log_directory_does_not_fail_sends() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let omni = Omni::builder()
        .log_dir(&file.join("logs"))
        .args(&["--retry-initial-delay-ms", "10"])
        .start();
    omni.ctl(&["new"]).ok();
    omni.fake()
        .push([Reply::error(503, "UNAVAILABLE", "The model is overloaded.")]);
    let out = omni.ctl(&["send", "hi"]).ok();
    assert!(out.stdout.contains("You said"), "{}", out.stdout);
    let status = omni.ctl(&["--json", "status"]).ok().json();
    assert_eq!(status["log_write_failures"], 1);
    let text = omni.ctl(&["status"]).ok().stdout;
    assert!(
        text.contains("diagnostics: 1 record could not be written"),
        "{text}"
    );
    assert!(
        omni.daemon_stderr()
            .contains("could not write a diagnostic record")
    );
}
