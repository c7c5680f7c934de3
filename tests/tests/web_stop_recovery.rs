//! When an answer goes wrong, in the browser: Stop cuts a slow answer short (what came is
//! kept out of the context and shown so) and, its prompt dropped with Back, the session
//! goes on; a request the API
//! rejects opens the recovery dialog with the API's message and a button per way out, and
//! the choice is applied through the API; Back while an answer streams stops it and takes
//! its round out, as a voice assistant's Back does.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, WebOmni, entries};
use serde_json::Value;

#[test]
fn stop_a_slow_answer_then_recover_from_a_rejected_request() {
    let web = WebOmni::start();
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    let session = browser.new_session_from_list(&web);

    // Stop, once some of a slow answer has arrived.
    browser.send_prompt("[demo:slow] take your time");
    browser.wait_until(
        "a slow answer to stream with #stop enabled",
        "const s = document.querySelector('#transcript .entry.streaming .entry-text'); \
         const stop = document.querySelector('button#stop'); \
         return s !== null && s.textContent.trim().length > 0 && stop && !stop.disabled",
        &[],
    );
    browser.click("button#stop");
    browser.wait_until(
        "Stop to end the stream and leave the partial answer shown reverted",
        "const partial = document.querySelector(arguments[0] + '.reverted'); \
         const stop = document.querySelector('button#stop'); \
         return document.querySelector('#transcript .entry.streaming') === null && \
             partial !== null && stop.disabled",
        &[entries("model").into()],
    );
    let history = web.history(&session);
    let partial = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["role"] == "model")
        .cloned()
        .unwrap_or(Value::Null);
    assert!(
        partial["reverted"] == true || partial["model"]["interrupted"] == true,
        "the partial answer is out of the context: {partial}"
    );
    // The prompt stays pending (Retry would ask again): Back drops it, then a new one.
    browser.click("button#back");
    web.wait_for_head(&session, "Back to drop the pending prompt", |head| {
        head == 0
    });
    browser.send_prompt("after the stop");
    browser.wait_for_answer("You said: \"after the stop\"");

    // A rejected request: the dialog, its message and choices; deep rollback applied.
    browser.send_prompt("[demo:400] this one breaks");
    browser.wait_for("dialog#recovery[open] button.recovery-choice");
    let message = browser.text("dialog#recovery .api-message");
    assert!(
        message.contains("invalid argument"),
        "the API's message is shown: {message:?}"
    );
    // One button per way out the API offers, each saying what it takes out.
    let summary = web.session(&session);
    assert!(summary["needs_recovery"].is_string(), "{summary}");
    let offered: Vec<String> = summary["recovery_choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().or(c["action"].as_str()).unwrap().to_string())
        .collect();
    let shown = browser.js(
        "return [...document.querySelectorAll('dialog#recovery button.recovery-choice')] \
             .map(b => [b.dataset.action, b.querySelector('.takes')?.textContent || ''])",
        &[],
    );
    let shown: Vec<(String, String)> = serde_json::from_value(shown).unwrap();
    let actions: Vec<&str> = shown.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(actions, offered, "the dialog offers what the API does");
    assert!(actions.contains(&"deep"), "{actions:?}");
    for (action, takes) in &shown {
        assert!(!takes.trim().is_empty(), "{action} says what it takes out");
    }
    browser.screenshot("recovery-dialog");
    browser.click("dialog#recovery button.recovery-choice[data-action=deep]");
    browser.wait_gone("dialog#recovery[open]");
    let summary = web.session(&session);
    assert_eq!(summary["needs_recovery"], Value::Null, "{summary}");
    let history = web.history(&session);
    let failed = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["text"]
                .as_str()
                .unwrap_or_default()
                .contains("[demo:400]")
        })
        .cloned()
        .unwrap();
    assert_eq!(
        failed["reverted"], true,
        "deep rollback took it out: {failed}"
    );
    browser.send_prompt("after the recovery");
    let before = browser.wait_for_answer("You said: \"after the recovery\"");

    // Back while an answer streams stops it and takes the whole round out.
    browser.send_prompt("[demo:slow] and one more");
    browser.wait_until(
        "the slow answer to stream with Back enabled",
        "const s = document.querySelector('#transcript .entry.streaming .entry-text'); \
         return s !== null && s.textContent.trim().length > 0 && \
             !document.querySelector('button#back').disabled",
        &[],
    );
    browser.click("button#back");
    web.wait_for_head(
        &session,
        "Back to stop the answer and drop its round",
        |head| head == before,
    );
    browser.wait_gone("#transcript .entry.streaming");
    assert_eq!(
        web.session(&session)["can_redo"],
        true,
        "Redo brings it back"
    );
    browser.assert_console_clean(&["409 (Conflict)"]);
}
