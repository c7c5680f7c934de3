//! Export and import end to end: a session leaves as Markdown, JSON or JSON lines (through
//! omnictl, written with the user's permissions, and over HTTP as downloads) and comes back
//! through `omnictl import` or `POST /v1/import` as the identical tree; the same content
//! imported twice is added once; sessions bigger than a frame pass both ways.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::path::{Path, PathBuf};

use omni_tests::fake_gemini::{Answer, Reply};
use omni_tests::harness::Omni;
use omni_tests::scenario::tools_file;
use serde_json::{Value, json};

/// A session with a function call and its result, an undone answer, and a second branch:
/// 1 prompt, 2 call, 3 result, 4 answer, 5 prompt, 6 answer (undone), 7 prompt, 8 answer.
fn branched_session(omni: &Omni) -> String {
    let tools = tools_file(omni).display().to_string();
    let created = omni.ctl(&["--json", "new", "--tools", &tools]).ok().json();
    omni.fake().push([Reply::Answer(Answer::calls([(
        "get_weather",
        json!({"city": "Paris"}),
        Some("c1"),
    )]))]);
    omni.ctl(&["send", "What is the weather in Paris?"]).ok();
    omni.ctl(&["tool-result", "get_weather", r#"{"celsius": 21}"#])
        .ok();
    omni.ctl(&["send", "and tomorrow?"]).ok();
    omni.ctl(&["back"]).ok();
    omni.ctl(&["send", "say something else"]).ok();
    created["session"].as_str().unwrap().to_string()
}

/// The session's export as JSON, read back from a file omnictl wrote.
fn exported(omni: &Omni, session: &str, file: &Path) -> Value {
    let path = file.to_str().unwrap();
    omni.ctl(&[
        "export", "-s", session, "--format", "json", "-o", path, "--force",
    ])
    .ok();
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

fn without_origin(mut export: Value) -> Value {
    export["origin"] = Value::Null;
    export
}

fn session_count(omni: &Omni) -> usize {
    let listed = omni.ctl(&["--json", "sessions"]).ok().json();
    listed["sessions"].as_array().unwrap().len()
}

#[test]
fn an_export_imported_elsewhere_is_the_identical_tree_and_a_second_import_adds_nothing() {
    let here = Omni::start();
    let session = branched_session(&here);
    let file = here.dir().join("session.json");
    let original = exported(&here, &session, &file);
    assert_eq!(original["format"], "omni.session");
    assert_eq!(original["nodes"].as_array().unwrap().len(), 8, "{original}");
    assert_eq!(original["head"], 8);

    let there = Omni::start();
    let out = there.ctl(&["import", file.to_str().unwrap()]).ok();
    assert!(out.stdout.contains("imported"), "{}", out.stdout);
    assert!(
        out.stdout.contains(&session),
        "the id is kept: {}",
        out.stdout
    );
    let copy = exported(&there, &session, &there.dir().join("copy.json"));
    assert_eq!(
        without_origin(copy.clone()),
        without_origin(original.clone())
    );
    let origin = copy["origin"].as_str().unwrap();
    assert!(origin.starts_with("import (omni: /"), "{origin}");
    assert!(origin.ends_with("session.json)"), "{origin}");
    assert_eq!(
        there.history_of(&session)["entries"],
        here.history_of(&session)["entries"],
        "the same transcript, reverted turns and reasons included"
    );
    // The imported session takes new turns like any other.
    there.ctl(&["send", "-s", &session, "carry on"]).ok();

    // Importing the same content again adds nothing, here or there.
    let before = session_count(&there);
    let again = there
        .ctl(&["--json", "import", file.to_str().unwrap()])
        .ok()
        .json();
    assert_eq!(again["imported"], 0, "{again}");
    assert_eq!(again["already_here"], 1, "{again}");
    assert_eq!(session_count(&there), before);
    let home = here.ctl(&["import", file.to_str().unwrap()]).ok();
    assert!(home.stdout.contains("already here"), "{}", home.stdout);
    assert_eq!(session_count(&here), 1);

    // Different content under a taken id gets a new id; nothing is overwritten.
    let mut changed = original.clone();
    changed["nodes"][0]["parts"][0]["content"]["text"] = json!("What about Rome?");
    let changed_file = here.dir().join("changed.json");
    std::fs::write(&changed_file, changed.to_string()).unwrap();
    let out = here
        .ctl(&["--json", "import", changed_file.to_str().unwrap()])
        .ok()
        .json();
    let outcome = &out["sessions"][0];
    assert_eq!(outcome["added"], true);
    assert_eq!(outcome["new_id"], true);
    assert_ne!(outcome["session"], session.as_str());
    assert_eq!(outcome["title"], "What about Rome?");
    assert_eq!(session_count(&here), 2);
    assert_eq!(
        without_origin(exported(&here, &session, &file)),
        without_origin(original)
    );
}

#[test]
fn markdown_shows_the_path_with_calls_fenced_and_all_adds_reverted_turns_struck_through() {
    let omni = Omni::start();
    let session = branched_session(&omni);
    let md = omni.ctl(&["export", "-s", &session]).ok().stdout;
    assert!(md.starts_with("# What is the weather in Paris?\n"), "{md}");
    assert!(md.contains("- Created: "), "{md}");
    assert!(
        md.contains("Call `get_weather`:\n\n```json\n{\n  \"city\": \"Paris\"\n}\n```"),
        "{md}"
    );
    assert!(md.contains("Result of `get_weather`:"), "{md}");
    assert!(md.contains("say something else"), "{md}");
    assert!(
        !md.contains("and tomorrow?"),
        "the reverted turn is not on the path: {md}"
    );
    let all = omni.ctl(&["export", "-s", &session, "--all"]).ok().stdout;
    assert!(all.contains("~~and tomorrow?~~"), "{all}");
    assert!(all.contains("reverted: taken back"), "{all}");

    // JSON lines: the session first, then one node per line.
    let lines = omni
        .ctl(&["export", "-s", &session, "--format", "jsonl"])
        .ok()
        .json_lines();
    assert_eq!(lines.len(), 9);
    assert_eq!(lines[0]["kind"], "session");
    assert_eq!(lines[0]["nodes"], json!([]));
    assert_eq!(lines[8]["id"], 8);
    // A JSON lines export imports too.
    let jsonl = omni.dir().join("s.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&jsonl, text.join("\n")).unwrap();
    let other = Omni::start();
    other.ctl(&["import", jsonl.to_str().unwrap()]).ok();
    assert_eq!(
        other.history_of(&session)["entries"],
        omni.history_of(&session)["entries"]
    );
}

#[test]
fn export_writes_files_with_the_users_permissions_and_never_over_one_without_force() {
    use std::os::unix::fs::PermissionsExt;
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "keep me"]).ok();
    let target = omni.dir().join("out.md");
    std::fs::write(&target, "precious").unwrap();
    let path = target.to_str().unwrap();
    omni.ctl(&["export", "-o", path])
        .fails(2, &["already exists", "--force"]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    omni.ctl(&["export", "-o", path, "--force"]).ok();
    assert!(
        std::fs::read_to_string(&target)
            .unwrap()
            .contains("keep me")
    );
    let fresh = omni.dir().join("fresh.json");
    omni.ctl(&["export", "--format", "json", "-o", fresh.to_str().unwrap()])
        .ok();
    let mode = std::fs::metadata(&fresh).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let db = omni.data_dir.join("db");
    omni.ctl(&["export", "-o", db.to_str().unwrap(), "--force"])
        .fails(2, &["omnid's data directory"]);
    omni.ctl(&["export", "--format", "pdf"])
        .fails(2, &["unknown format 'pdf'"]);
}

/// `--force` replaces a regular file and nothing else: not a FIFO, a directory or a
/// symbolic link, and nothing in omnid's runtime directory (its sockets, the API token);
/// `logs export` alike. What was there is left as it was.
#[test]
fn force_never_replaces_a_special_file_or_omnids_runtime_files() {
    use std::os::unix::fs::FileTypeExt;
    let omni = Omni::start();
    omni.ctl(&["new"]).ok();
    omni.ctl(&["send", "keep me"]).ok();
    let fifo = omni.dir().join("a-fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let folder = omni.dir().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    let link = omni.dir().join("a-link");
    std::os::unix::fs::symlink(omni.dir().join("out.md"), &link).unwrap();
    for (path, what) in [
        (&fifo, "is a FIFO"),
        (&folder, "is a directory"),
        (&link, "is a symbolic link"),
    ] {
        let path = path.to_str().unwrap();
        for command in [
            &["export", "-o", path, "--force"][..],
            &["logs", "export", "-o", path, "--force"],
        ] {
            omni.ctl(command)
                .fails(2, &[what, "--force replaces only a regular file"]);
        }
    }
    let kind = |path: &std::path::Path| std::fs::symlink_metadata(path).unwrap().file_type();
    assert!(kind(&fifo).is_fifo() && kind(&link).is_symlink());

    // omnid's own socket, and anything beside it.
    let socket = omni.socket.to_str().unwrap();
    omni.ctl(&["export", "-o", socket, "--force"])
        .fails(2, &["omnid's runtime (socket) directory"]);
    let beside = omni.socket.with_file_name("api.token");
    omni.ctl(&["logs", "export", "-o", beside.to_str().unwrap(), "--force"])
        .fails(2, &["omnid's runtime (socket) directory"]);
    assert!(kind(&omni.socket).is_socket());
    omni.ctl(&["status"]).ok();
}

/// An exported session whose nodes hold `mib` MiB of text in all.
fn big_export(id: &str, mib: usize) -> Value {
    let chunk = "word ".repeat(1024 * 1024 / 5);
    let nodes: Vec<Value> = (1..=mib as u64 * 2)
        .map(|n| {
            let role = if n % 2 == 1 { "user" } else { "model" };
            let model = (role == "model").then(|| json!({"model": "m", "model_version": null, "finish_reason": "STOP", "usage": {"prompt_tokens": 10, "answer_tokens": 5, "thought_tokens": 0, "total_tokens": 15, "cached_tokens": 0}, "attempts": 1, "latency_ms": 3, "interrupted": false, "provider": "gemini"}));
            let text = if n == 1 { format!("big {n}\n{}", &chunk[..1000]) } else { chunk[..512 * 1024].to_string() };
            json!({"id": n, "parent": n - 1, "role": role, "parts": [{"content": {"text": text}, "thought_signature": null}], "created_at_ms": 1_700_000_000_000u64 + n, "model": model})
        })
        .collect();
    let last = nodes.len() as u64;
    json!({"format": "omni.session", "version": 1, "id": id, "title": "", "title_set": false, "origin": null, "model": null, "system": null, "tools_json": null, "created_at_ms": 1_700_000_000_000u64, "updated_at_ms": 1_700_000_000_100u64, "head": last, "nodes": nodes})
}

#[test]
fn a_session_bigger_than_a_frame_imports_and_exports_whole_through_omnictl_and_http() {
    let omni = Omni::start();
    let id = "0e0c1c3e-6a43-4a8e-9b0e-1f2d3c4b5a69";
    let big = big_export(id, 20);
    let file = omni.dir().join("big.json");
    std::fs::write(&file, big.to_string()).unwrap();
    assert!(
        std::fs::metadata(&file).unwrap().len() > 18 * 1024 * 1024,
        "bigger than a frame (16 MiB)"
    );
    let out = omni
        .ctl(&["--json", "import", file.to_str().unwrap()])
        .ok()
        .json();
    assert_eq!(out["sessions"][0]["session"], id, "{out}");
    assert_eq!(out["sessions"][0]["nodes"], 40);
    assert_eq!(out["sessions"][0]["title"], "big 1");
    let back = exported(&omni, id, &omni.dir().join("back.json"));
    assert_eq!(back["nodes"], big["nodes"]);
    assert_eq!(back["head"], 40);
    // Its history is bigger than a frame too: it comes in pieces, whole.
    let history = omni.ctl(&["--json", "history", "-s", id]).ok().json();
    let entries = history["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 40);
    assert_eq!(entries[39]["text"].as_str().unwrap().len(), 512 * 1024);
    let text = omni
        .ctl(&["history", "-s", id, "--full", "--no-pager"])
        .ok()
        .stdout;
    assert!(text.len() > 16 * 1024 * 1024, "{} bytes", text.len());
    let listed = omni.ctl(&["--json", "sessions"]).ok().json();
    let summary = &listed["sessions"][0];
    assert!(
        summary["origin"]
            .as_str()
            .unwrap_or_default()
            .starts_with("import (omni: "),
        "{summary}"
    );
    let download = omni
        .api()
        .get(&format!("/v1/sessions/{id}/export?format=json"));
    assert_eq!(download.status, 200);
    assert_eq!(download.content_type, "application/json");
    let downloaded: Value = serde_json::from_str(&download.body).unwrap();
    assert_eq!(downloaded["nodes"], big["nodes"]);
}

#[test]
fn over_http_each_format_downloads_and_an_export_posted_back_is_added_once() {
    let omni = Omni::start();
    let session = branched_session(&omni);
    let api = omni.api();
    let md = api.get(&format!("/v1/sessions/{session}/export?all=true"));
    assert_eq!(md.status, 200, "{}", md.body);
    assert!(
        md.content_type.starts_with("text/markdown"),
        "{}",
        md.content_type
    );
    let disposition = md.headers["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        disposition.contains(&format!(
            "omni-what-is-the-weather-in-paris-{}.md",
            &session[..8]
        )),
        "{disposition}"
    );
    assert!(md.body.contains("~~and tomorrow?~~"), "{}", md.body);
    let lines = api.get(&format!("/v1/sessions/{session}/export?format=jsonl"));
    assert_eq!(lines.content_type, "application/x-ndjson");
    assert_eq!(lines.body.lines().count(), 9);
    api.get(&format!("/v1/sessions/{session}/export?format=pdf"))
        .error(400, "invalid_request");
    let json = api
        .get(&format!("/v1/sessions/{session}/export?format=json"))
        .json();

    let other = Omni::start();
    let body = json!({"session": json, "file": "from-here.json"}).to_string();
    let imported = other.api().post("/v1/import", &body);
    assert_eq!(imported.status, 200, "{}", imported.body);
    assert_eq!(imported.json()["added"], true);
    assert_eq!(imported.json()["session"], session.as_str());
    assert_eq!(other.api().post("/v1/import", &body).json()["added"], false);
    assert_eq!(
        other.history_of(&session)["entries"],
        omni.history_of(&session)["entries"]
    );
    other
        .api()
        .post("/v1/import", r#"{"session": {"format": "something.else"}}"#)
        .error(400, "invalid_request");
}

#[test]
fn a_folder_imports_what_it_can_and_names_each_file_that_failed() {
    let omni = Omni::start();
    let session = branched_session(&omni);
    let folder: PathBuf = omni.dir().join("exports");
    std::fs::create_dir_all(folder.join("nested")).unwrap();
    let good = folder.join("nested").join("good.json");
    let export = exported(&omni, &session, &good);
    std::fs::write(
        folder.join("broken.json"),
        "{\"format\": \"omni.session\", \"nodes\": [",
    )
    .unwrap();
    let mut bad_tree = export.clone();
    bad_tree["nodes"][2]["parent"] = json!(9);
    std::fs::write(folder.join("bad-tree.json"), bad_tree.to_string()).unwrap();
    std::fs::write(folder.join("notes.txt"), "not a session").unwrap();

    let other = Omni::start();
    let out = other.ctl(&["import", folder.to_str().unwrap()]).fails(
        1,
        &[
            "broken.json",
            "bad-tree.json: node 3's parent 9 comes after it",
            "2 problems",
        ],
    );
    assert!(out.stdout.contains(&session), "{}", out.stdout);
    assert!(!out.stderr.contains("notes.txt"), "{}", out.stderr);
    assert_eq!(
        session_count(&other),
        1,
        "the good one, and nothing of the others"
    );
}
