//! When an answer goes wrong, in the browser: Stop cuts a slow answer short (what came is
//! kept out of the context and shown so) and the session goes on; a request the API
//! rejects opens the recovery dialog with the API's message and a button per way out, and
//! the choice is applied through the API.
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
    for action in ["deep", "clear", "ignore", "retry", "compact"] {
        let takes = browser.text(&format!(
            "dialog#recovery button.recovery-choice[data-action={action}] .takes"
        ));
        assert!(!takes.trim().is_empty(), "{action} says what it takes out");
    }
    assert!(
        web.session(&session)["needs_recovery"].is_object(),
        "{}",
        web.session(&session)
    );
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
    browser.wait_for_answer("You said: \"after the recovery\"");
    browser.assert_console_clean(&["409 (Conflict)"]);
}
