//! Archive, trash and restore end to end, through omnictl and HTTP: an archived session
//! leaves the listing but not `--archived`; a deleted one leaves every listing but the
//! trash, takes no changes, and comes back whole with `restore`. Nothing is lost.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;
use serde_json::Value;

fn ids(omni: &Omni, args: &[&str]) -> Vec<String> {
    let mut full = vec!["--json", "sessions"];
    full.extend_from_slice(args);
    omni.ctl(&full).ok().json()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn archive_hides_delete_trashes_and_restore_brings_back_whole() {
    let omni = Omni::start();
    let kept = omni.new_session();
    omni.ctl(&["send", "-s", &kept, "Keep me around"]).ok();
    let other = omni.new_session();
    omni.ctl(&["send", "-s", &other, "Something else"]).ok();
    let before: Value = omni.history_of(&kept);

    let archived = omni.ctl(&["archive", "-s", "keep me"]).ok();
    assert!(
        archived.stdout.contains("is archived"),
        "{}",
        archived.stdout
    );
    assert_eq!(ids(&omni, &[]), [other.as_str()]);
    assert_eq!(ids(&omni, &["--archived"]), [other.clone(), kept.clone()]);
    let text = omni.ctl(&["sessions", "--archived"]).ok().stdout;
    assert!(text.contains("[archived] Keep me around"), "{text}");
    omni.ctl(&["archive", "-s", &kept])
        .fails(1, &["is archived already"]);
    // Archiving is not activity: the other session stays the most recent.
    omni.ctl(&["unarchive", "-s", &kept]).ok();
    assert_eq!(ids(&omni, &[]), [other.clone(), kept.clone()]);

    let deleted = omni.ctl(&["delete", "-s", &kept]).ok();
    assert!(
        deleted.stdout.contains("is in the trash"),
        "{}",
        deleted.stdout
    );
    assert_eq!(ids(&omni, &[]), [other.as_str()]);
    assert_eq!(ids(&omni, &["--archived"]), [other.as_str()]);
    assert_eq!(ids(&omni, &["--trash"]), [kept.as_str()]);
    omni.ctl(&["send", "-s", &kept, "still there?"])
        .fails(1, &["is in the trash; `omnictl restore` takes it back"]);
    // Reading it still works: nothing is lost.
    assert_eq!(omni.history_of(&kept), before);

    let mut omni = omni;
    omni.stop();
    omni.restart();
    assert_eq!(ids(&omni, &["--trash"]), [kept.as_str()]);
    omni.ctl(&["restore", "-s", &kept[..8]]).ok();
    assert_eq!(ids(&omni, &[]), [other.clone(), kept.clone()]);
    assert_eq!(omni.history_of(&kept), before);
    omni.ctl(&["send", "-s", &kept, "back again"]).ok();
}

#[test]
fn archive_delete_and_restore_over_http() {
    let omni = Omni::start();
    let id = omni.new_session();
    omni.ctl(&["send", "-s", &id, "over http"]).ok();
    let api = omni.api();
    let listed = |query: &str| -> usize {
        api.get(&format!("/v1/sessions{query}")).json()["sessions"]
            .as_array()
            .unwrap()
            .len()
    };
    let archived = api.post(&format!("/v1/sessions/{id}/archive"), "");
    assert_eq!(archived.status, 200, "{}", archived.body);
    assert!(archived.json()["archived_at_ms"].is_u64());
    assert_eq!((listed(""), listed("?archived=true")), (0, 1));
    api.post("/v1/sessions/current/unarchive", "");
    let trashed = api.post(&format!("/v1/sessions/{id}/delete"), "");
    assert!(trashed.json()["deleted_at_ms"].is_u64(), "{}", trashed.body);
    assert_eq!((listed(""), listed("?trash=true")), (0, 1));
    let again = api.post(&format!("/v1/sessions/{id}/delete"), "");
    again.error(409, "wrong_state");
    let restored = api.post(&format!("/v1/sessions/{id}/restore"), "");
    assert!(
        restored.json()["deleted_at_ms"].is_null(),
        "{}",
        restored.body
    );
    assert_eq!(listed(""), 1);
}
