//! `omnictl sessions` and `GET /v1/sessions` at any size: pages newest first by last
//! activity, `--before` the next page, filters by time, origin and model; the columns a
//! user reads.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use serde_json::Value;

fn ids(page: &Value) -> Vec<String> {
    page["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sessions_page_by_last_activity_and_filter() {
    let omni = Omni::start();
    let mut made = Vec::new();
    for n in 0..5 {
        let id = omni.new_session();
        omni.ctl(&["send", "-s", &id, &format!("prompt number {n}")])
            .ok();
        made.push(id);
    }
    // The oldest session becomes the most recently active one.
    omni.ctl(&["send", "-s", &made[0], "back to the first"])
        .ok();
    let expected = [&made[0], &made[4], &made[3], &made[2], &made[1]];

    let first = omni
        .ctl(&["--json", "sessions", "--limit", "2"])
        .ok()
        .json();
    assert_eq!(ids(&first), [expected[0].clone(), expected[1].clone()]);
    let before = first["next_before"]
        .as_str()
        .expect("a next page")
        .to_string();
    let second = omni
        .ctl(&["--json", "sessions", "--limit", "2", "--before", &before])
        .ok()
        .json();
    assert_eq!(ids(&second), [expected[2].clone(), expected[3].clone()]);
    let before = second["next_before"].as_str().unwrap().to_string();
    let last = omni
        .ctl(&["--json", "sessions", "--limit", "2", "--before", &before])
        .ok()
        .json();
    assert_eq!(ids(&last), [expected[4].clone()]);
    assert!(last["next_before"].is_null());

    // The columns: title, origin, model, turns, last activity.
    let text = omni.ctl(&["sessions"]).ok().stdout;
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    for column in ["ID", "LAST ACTIVE", "ORIGIN", "MODEL", "TURNS", "TITLE"] {
        assert!(header.contains(column), "{column:?} in {header}");
    }
    let top = lines.next().unwrap();
    assert!(top.starts_with(&format!("* {}  ", &made[0][..8])), "{text}");
    for column in ["own", "gemini/fake-model", "    4  prompt number 0"] {
        assert!(top.contains(column), "{column:?} in {top}");
    }
    // Every column starts where the header says.
    let at = |line: &str, word: &str| line.find(word).unwrap();
    assert_eq!(at(header, "TITLE"), at(top, "prompt number 0"), "{text}");
    assert_eq!(at(header, "MODEL"), at(top, "gemini/fake-model"), "{text}");

    let all = |args: &[&str]| {
        let mut full = vec!["--json", "sessions"];
        full.extend_from_slice(args);
        ids(&omni.ctl(&full).ok().json())
    };
    assert_eq!(all(&["--origin", "own"]).len(), 5);
    assert!(all(&["--origin", "proxy"]).is_empty());
    assert_eq!(all(&["--model", "FAKE-model"]).len(), 5);
    assert!(all(&["--model", "claude"]).is_empty());
    assert!(all(&["--since", "2999-01-01"]).is_empty());
    assert_eq!(all(&["--since", "1h"]).len(), 5);
    omni.ctl(&["sessions", "--origin", "elsewhere"]).fails(
        2,
        &["'elsewhere' is not an origin; use own, proxy or import"],
    );
    omni.ctl(&["sessions", "--since", "someday"])
        .fails(2, &["--since \"someday\" is not a time"]);

    let api = omni.api();
    let page = api.get("/v1/sessions?limit=3&origin=own");
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(
        ids(&page.json()),
        expected[..3]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    );
    assert!(page.json()["next_before"].is_string());
    let wrong = api.get("/v1/sessions?origin=mars");
    wrong.error(400, "invalid_request");
}

/// Sessions that share one last-activity millisecond (imported with one timestamp) page
/// like any others: every page its size, the cursor after the last one, none skipped.
#[test]
fn sessions_of_one_millisecond_page_without_losing_any() {
    let omni = Omni::start();
    let folder = tempfile::tempdir().unwrap();
    for n in 0..7 {
        let lines = [
            format!(
                r#"{{"sessionId":"00000000-0000-4000-8000-00000000000{n}","projectHash":"p","startTime":"2025-06-04T12:00:00.000Z","lastUpdated":"2025-06-04T12:00:00.000Z","kind":"main"}}"#
            ),
            format!(
                r#"{{"id":"u1","timestamp":"2025-06-04T12:00:00.000Z","type":"user","content":[{{"text":"question {n}"}}]}}"#
            ),
            format!(
                r#"{{"id":"g1","timestamp":"2025-06-04T12:00:00.000Z","type":"gemini","content":"answer {n}","model":"gemini-2.5-pro"}}"#
            ),
        ];
        let file = folder
            .path()
            .join(format!("session-2025-06-04T12-00-{n}.jsonl"));
        std::fs::write(file, lines.join("\n") + "\n").unwrap();
    }
    omni.ctl(&["import", folder.path().to_str().unwrap()]).ok();
    let everything = omni
        .ctl(&["--json", "sessions", "--limit", "100"])
        .ok()
        .json();
    let times: Vec<&Value> = everything["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["updated_at_ms"])
        .collect();
    assert_eq!(times.len(), 7, "{everything}");
    assert!(
        times.iter().all(|t| *t == times[0]),
        "one millisecond: {times:?}"
    );

    let mut seen = Vec::new();
    let mut before: Option<String> = None;
    let mut sizes = Vec::new();
    loop {
        let mut args = vec!["--json", "sessions", "--limit", "3"];
        if let Some(before) = &before {
            args.extend(["--before", before]);
        }
        let page = omni.ctl(&args).ok().json();
        sizes.push(ids(&page).len());
        seen.extend(ids(&page));
        match page["next_before"].as_str() {
            Some(next) => before = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(sizes, [3, 3, 1]);
    assert_eq!(
        seen,
        ids(&everything),
        "the same order, none twice, none missed"
    );

    // The text listing says how to ask for the next page, with that cursor.
    let text = omni.ctl(&["sessions", "--limit", "3"]).ok().stdout;
    assert!(
        text.lines().count() == 5,
        "header, three rows, more: {text}"
    );
    let more = text.lines().last().unwrap();
    let cursor = more.rsplit(' ').next().unwrap();
    let next = omni
        .ctl(&["--json", "sessions", "--limit", "3", "--before", cursor])
        .ok()
        .json();
    assert_eq!(ids(&next), seen[3..6].to_vec(), "{more}");
    // Over HTTP the same.
    let page = omni
        .api()
        .get(&format!("/v1/sessions?limit=3&before={cursor}"));
    assert_eq!(ids(&page.json()), seen[3..6].to_vec(), "{}", page.body);
}
