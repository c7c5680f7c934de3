//! Titles end to end: taken from the first prompt (cut at a word), set with `omnictl
//! rename` and over HTTP, shown by `sessions`, and accepted wherever an id is, by a unique
//! prefix of the title as by a prefix of the id.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use serde_json::Value;

fn listed(omni: &Omni) -> Vec<Value> {
    omni.ctl(&["--json", "sessions"]).ok().json()["sessions"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_title_comes_from_the_first_prompt_cut_at_a_word_until_renamed() {
    let omni = Omni::start();
    let id = omni.new_session();
    let prompt = "Explain why the borrow checker rejects this closure that captures a \
                  mutable reference twice\nand more on a second line";
    omni.ctl(&["send", "-s", &id, prompt]).ok();
    let title = listed(&omni)[0]["title"].as_str().unwrap().to_string();
    assert_eq!(
        title,
        "Explain why the borrow checker rejects this closure that…"
    );
    omni.ctl(&["send", "-s", &id, "a later prompt"]).ok();
    assert_eq!(listed(&omni)[0]["title"], title.as_str());

    let renamed = omni
        .ctl(&["rename", "-s", &id[..8], "Borrow", "checker", "notes"])
        .ok();
    assert!(
        renamed
            .stdout
            .contains("is now titled “Borrow checker notes”"),
        "{}",
        renamed.stdout
    );
    let session = &listed(&omni)[0];
    assert_eq!(session["title"], "Borrow checker notes");
    assert_eq!(session["title_set"], true);
    let text = omni.ctl(&["sessions"]).ok().stdout;
    assert!(text.contains("Borrow checker notes"), "{text}");

    // The title survives a restart and later prompts.
    let mut omni = omni;
    omni.stop();
    omni.restart();
    omni.ctl(&["send", "-s", &id, "one more"]).ok();
    assert_eq!(listed(&omni)[0]["title"], "Borrow checker notes");

    omni.ctl(&["rename", "-s", &id, " "])
        .fails(2, &["the title is empty"]);
}

#[test]
fn a_unique_title_prefix_names_a_session_wherever_an_id_does() {
    let omni = Omni::start();
    let first = omni.new_session();
    omni.ctl(&["send", "-s", &first, "Deploy the staging cluster"])
        .ok();
    let second = omni.new_session();
    omni.ctl(&["send", "-s", &second, "Deploy notes for production"])
        .ok();
    let third = omni.new_session();
    omni.ctl(&["send", "-s", &third, "Groceries"]).ok();

    // A prefix of a title, regardless of case, wherever -s takes an id.
    let history = omni
        .ctl(&["--json", "history", "-s", "deploy the st"])
        .ok()
        .json();
    assert_eq!(history["session"], first.as_str());
    omni.ctl(&["send", "-s", "groc", "and milk"]).ok();
    assert_eq!(
        omni.history_of(&third)["entries"].as_array().unwrap().len(),
        4
    );

    // Ambiguous: said so, nothing changed.
    omni.ctl(&["send", "-s", "Deploy", "which one?"])
        .fails(2, &["'Deploy' begins the titles of 2 sessions"]);
    omni.ctl(&["history", "-s", "no such title"])
        .fails(1, &["no session matches 'no such title'"]);

    // Over HTTP too, and rename by HTTP.
    let api = omni.api();
    let renamed = api.request(
        "PUT",
        "/v1/sessions/Deploy%20notes/title",
        &[],
        r#"{"title": "Production rollout"}"#,
    );
    assert_eq!(renamed.status, 200, "{}", renamed.body);
    assert_eq!(renamed.json()["id"], second.as_str());
    assert_eq!(renamed.json()["title"], "Production rollout");
    let session = api.get("/v1/sessions/production%20r");
    assert_eq!(session.json()["id"], second.as_str(), "{}", session.body);
    let empty = api.request("PUT", "/v1/sessions/current/title", &[], r#"{"title": ""}"#);
    assert_eq!(empty.status, 400, "{}", empty.body);
}
