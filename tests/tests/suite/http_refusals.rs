//! Requests the HTTP API refuses with a status of their own before anything streams.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::harness::Omni;

#[test]
fn a_streamed_send_with_an_empty_prompt_is_a_400_before_any_event() {
    let omni = Omni::start();
    let api = omni.api();
    let created = api.post("/v1/sessions", "{}");
    let id = created.json()["session"].as_str().unwrap().to_string();
    for body in [r#"{"prompt": ""}"#, r#"{"prompt": "  \n "}"#] {
        // No `Accept: application/json`: the answer would stream as server-sent events.
        let refused = api.post(&format!("/v1/sessions/{id}/send"), body);
        let message = refused.error(400, "invalid_request");
        assert!(message.contains("the prompt is empty"), "{message}");
    }
    let session = api.get(&format!("/v1/sessions/{id}")).json();
    assert_eq!(session["nodes"], 0, "nothing was stored");
}
