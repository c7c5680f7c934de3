//! Full-text search end to end: every session and branch (reverted turns found and marked),
//! proxied conversations, `omnictl search` and `GET /v1/search` alike, `history --around`;
//! a crash between a store commit and the index's loses nothing after the restart; a
//! damaged or old index is rebuilt from the store.

#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use omni_tests::harness::{Omni, Signal};
use omni_tests::proxy::{converse, start};
use serde_json::Value;

/// `omnictl --json search ARGS`, asked again until it has `hits` hits (the index follows
/// the store a moment after each commit, and catches up after a start).
#[track_caller]
fn search_until(omni: &Omni, args: &[&str], hits: usize) -> Value {
    let mut command = vec!["--json", "search"];
    command.extend_from_slice(args);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let found = omni.ctl(&command).ok().json();
        let complete = found["complete"].as_bool().unwrap();
        if complete && found["hits"].as_array().unwrap().len() >= hits {
            return found;
        }
        assert!(Instant::now() < deadline, "never {hits} hits: {found}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The highlighted words of a hit, from its snippet and ranges.
fn highlighted(hit: &Value) -> Vec<String> {
    let snippet = hit["snippet"].as_str().unwrap();
    hit["highlights"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let (start, end) = (r["start"].as_u64().unwrap(), r["end"].as_u64().unwrap());
            snippet[start as usize..end as usize].to_string()
        })
        .collect()
}

#[test]
fn search_finds_every_branch_and_proxied_turns_and_marks_reverted_ones() {
    let (omni, proxy) = start(&[]);
    let own = omni.new_session();
    omni.ctl(&["send", "where do zebras sleep at night"]).ok();
    omni.ctl(&["send", "tell me about platypus venom"]).ok();
    omni.ctl(&["undo"]).ok(); // the platypus answer (node 4) leaves the context
    converse(&proxy, &[("user", "a proxied question about wombats")]);

    // The undone answer is found, and marked; the prompt before it is not reverted.
    let found = search_until(&omni, &["platypus"], 2);
    let hits = found["hits"].as_array().unwrap();
    let by_node = |n: u64| hits.iter().find(|h| h["node"] == n).unwrap();
    assert_eq!(by_node(3)["session"], own.as_str());
    assert_eq!(by_node(3)["role"], "user");
    assert_eq!(by_node(3)["reverted"], false);
    assert_eq!(by_node(3)["title"], "where do zebras sleep at night");
    assert_eq!(by_node(4)["reverted"], true, "{found}");
    assert_eq!(by_node(4)["why_reverted"], "undone");
    assert_eq!(highlighted(by_node(3)), ["platypus"]);

    // A proxied conversation is found, question and answer.
    let found = search_until(&omni, &["wombats"], 2);
    let hits = found["hits"].as_array().unwrap();
    assert!(hits.iter().all(|h| h["session"] != own.as_str()), "{found}");
    assert_eq!(
        hits[0]["title"], "a proxied question about wombats",
        "{found}"
    );

    // Filters: role, session, limit, since.
    let prompts = search_until(&omni, &["platypus", "--role", "user"], 1);
    assert_eq!(prompts["hits"].as_array().unwrap().len(), 1, "{prompts}");
    let elsewhere = omni
        .ctl(&["--json", "search", "wombats", "-s", &own])
        .ok()
        .json();
    assert_eq!(
        elsewhere["hits"].as_array().unwrap().len(),
        0,
        "{elsewhere}"
    );
    let one = omni
        .ctl(&["--json", "search", "platypus", "--limit", "1"])
        .ok()
        .json();
    assert_eq!(one["hits"].as_array().unwrap().len(), 1);
    let future = omni
        .ctl(&["--json", "search", "platypus", "--since", "2999-01-01"])
        .ok()
        .json();
    assert_eq!(future["hits"].as_array().unwrap().len(), 0);

    // As a person reads it: title, session, node, role, the reverted mark, the snippet.
    let text = omni.ctl(&["search", "platypus"]).ok().stdout;
    assert!(
        text.contains("where do zebras sleep at night · session "),
        "{text}"
    );
    assert!(text.contains("· node 4 · model ·"), "{text}");
    assert!(text.contains("[reverted: undone]"), "{text}");
    assert!(text.contains("    tell me about platypus venom"), "{text}");
    omni.ctl(&["search", "   "])
        .fails(2, &["the search is empty"]);

    // Over HTTP: the same hits; a missing query is refused.
    let api = omni.api();
    let reply = api.get("/v1/search?q=platypus&role=model");
    assert_eq!(reply.status, 200, "{}", reply.body);
    let hits = reply.json()["hits"].as_array().unwrap().clone();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["node"], 4);
    assert_eq!(hits[0]["why_reverted"], "undone");
    assert_eq!(highlighted(&hits[0]), ["platypus"]);
    api.get("/v1/search").error(400, "invalid_request");
    api.get("/v1/search?q=x&role=admin")
        .error(400, "invalid_request");

    // history --around takes you there: the hit and its neighbours only.
    let around = omni
        .ctl(&[
            "--json",
            "history",
            "-s",
            &own,
            "--around",
            "3",
            "--context",
            "1",
        ])
        .ok()
        .json();
    let ids: Vec<u64> = around["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [2, 3, 4], "{around}");
    omni.ctl(&["history", "-s", &own, "--around", "99"])
        .fails(1, &["has no node 99"]);
}

#[test]
fn a_crash_between_the_store_commit_and_the_index_commit_loses_nothing() {
    let mut omni = Omni::start();
    omni.new_session();
    for n in 0..5 {
        omni.ctl(&["send", &format!("quokka number{n}")]).ok();
    }
    // Killed at once after the last acknowledged send: the index commits in batches a
    // moment later, so the last turns are in the store only.
    omni.kill9();
    omni.restart();
    let found = search_until(&omni, &["quokka", "--limit", "100"], 10);
    assert_eq!(found["hits"].as_array().unwrap().len(), 10, "{found}");
    let last = search_until(&omni, &["number4"], 2);
    assert_eq!(last["hits"].as_array().unwrap().len(), 2, "{last}");
}

#[test]
fn a_damaged_or_old_index_is_rebuilt_from_the_store_and_stays_private() {
    let mut omni = Omni::start();
    omni.new_session();
    omni.ctl(&["send", "an echidna walks into a bar"]).ok();
    search_until(&omni, &["echidna"], 2);
    let index = omni.data_dir.join("search");
    assert_private(&index);

    for damage in [
        Damage::OldVersion,
        Damage::Garbage,
        Damage::Missing,
        Damage::Segment("term"),
        Damage::Segment("store"),
    ] {
        omni.signal(Signal::TERM);
        omni.wait_exit(Duration::from_secs(10)).unwrap();
        damage.apply(&index);
        omni.restart();
        let found = search_until(&omni, &["echidna"], 2);
        assert_eq!(
            found["hits"].as_array().unwrap().len(),
            2,
            "{damage:?}: {found}"
        );
        let version = std::fs::read_to_string(index.join("version")).unwrap();
        assert_eq!(version.trim(), "2", "{damage:?}");
        assert_private(&index);
    }
}

#[derive(Debug, Clone, Copy)]
enum Damage {
    OldVersion,
    Garbage,
    Missing,
    /// Bytes flipped in the middle of every segment file with this extension.
    Segment(&'static str),
    /// Every byte flipped of every segment file with this extension.
    Wrecked(&'static str),
}

impl Damage {
    fn apply(self, index: &std::path::Path) {
        match self {
            Damage::OldVersion => std::fs::write(index.join("version"), "0\n").unwrap(),
            Damage::Garbage => std::fs::write(index.join("meta.json"), b"{ not json").unwrap(),
            Damage::Missing => std::fs::remove_dir_all(index).unwrap(),
            Damage::Segment(extension) | Damage::Wrecked(extension) => {
                let mut damaged = 0;
                for entry in std::fs::read_dir(index).unwrap() {
                    let path = entry.unwrap().path();
                    if path.extension().is_some_and(|e| e == extension) {
                        let mut bytes = std::fs::read(&path).unwrap();
                        let (middle, end) = match self {
                            Damage::Wrecked(_) => (0, bytes.len()),
                            _ => (bytes.len() / 2, (bytes.len() / 2 + 8).min(bytes.len())),
                        };
                        for byte in &mut bytes[middle..end] {
                            *byte = !*byte;
                        }
                        std::fs::write(&path, bytes).unwrap();
                        damaged += 1;
                    }
                }
                assert!(damaged > 0, "no .{extension} file to damage");
            }
        }
    }
}

/// A segment file damaged while omnid runs: the search that trips on it is refused
/// saying the index is being verified, the index is rebuilt from the store, and the next
/// searches find everything again.
#[test]
fn an_index_damaged_while_running_is_rebuilt_after_the_search_that_trips_on_it() {
    let omni = Omni::start();
    omni.new_session();
    omni.ctl(&["send", "a narwhal surfaces"]).ok();
    search_until(&omni, &["narwhal"], 2);
    Damage::Wrecked("store").apply(&omni.data_dir.join("search"));
    let first = omni.ctl(&["--json", "search", "narwhal"]);
    assert_ne!(first.code, 0, "the damage is read: {}", first.stdout);
    assert!(
        first.stderr.contains("being verified"),
        "{}\n{}",
        first.stderr,
        omni.daemon_stderr()
    );
    let found = search_until(&omni, &["narwhal"], 2);
    assert_eq!(found["hits"].as_array().unwrap().len(), 2, "{found}");
    assert!(
        omni.daemon_stderr()
            .contains("the search index is damaged; rebuilding it from the store"),
        "{}",
        omni.daemon_stderr()
    );
}

/// The index's folder is 0700 and every file in it 0600.
#[track_caller]
fn assert_private(dir: &std::path::Path) {
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(dir), 0o700, "{}", dir.display());
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            assert_eq!(mode(&path), 0o600, "{}", path.display());
        }
    }
}

#[test]
fn a_search_right_after_an_acknowledged_send_finds_it() {
    let omni = Omni::start();
    omni.new_session();
    let api = omni.api();
    for n in 0..5 {
        omni.ctl(&["send", &format!("an ocelot named word{n}")])
            .ok();
        // No polling: what was acknowledged before the search arrived is found by it.
        let found = omni
            .ctl(&["--json", "search", &format!("word{n}")])
            .ok()
            .json();
        assert_eq!(found["complete"], true, "{found}");
        assert_eq!(found["hits"].as_array().unwrap().len(), 2, "{found}");
        let reply = api.get(&format!("/v1/search?q=ocelot+word{n}"));
        assert_eq!(
            reply.json()["hits"].as_array().unwrap().len(),
            2,
            "{}",
            reply.body
        );
    }
}

#[test]
fn hostile_queries_are_refused_naming_the_limit_and_omnid_goes_on() {
    let omni = Omni::start();
    omni.new_session();
    omni.ctl(&["send", "a tapir in the rain"]).ok();
    let api = omni.api();
    let brackets = format!("{}x{}", "(".repeat(1_000), ")".repeat(1_000));
    let reply = api.get(&format!(
        "/v1/search?q={}",
        brackets.replace('(', "%28").replace(')', "%29")
    ));
    let said = reply.error(400, "invalid_request");
    assert!(said.contains("at most 1000 are allowed"), "{said}");
    let nested = "-(".repeat(3_000);
    let reply = api.get(&format!("/v1/search?q={}", nested.replace('(', "%28")));
    reply.error(400, "invalid_request");
    omni.ctl(&["search", &"(".repeat(20)])
        .fails(2, &["nests 20 brackets deep; at most 8 are allowed"]);
    let found = omni.ctl(&["--json", "search", "tapir"]).ok().json();
    assert_eq!(found["hits"].as_array().unwrap().len(), 2, "{found}");
}
