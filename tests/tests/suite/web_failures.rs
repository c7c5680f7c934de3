//! A model that fails, as the browser shows it happen: an overloaded model is retried with
//! a `retrying` notice counting down until the answer comes; a model out of quota hands
//! over to its fallback with a `fallback` notice, and the answer is stored as the
//! fallback's; a prompt the model refuses three times (Retry, Retry) suspends the session
//! until Resume; and after a rejected request left as it is ("ignore" in the recovery
//! dialog), the diagnostics dialog lists the error with a bundle that holds it.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, WebOmni};
use serde_json::Value;

/// The stored entry of node `node`.
fn stored(web: &WebOmni, session: &str, node: u64) -> Value {
    let history = web.history(session);
    let found = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == node)
        .cloned();
    found.unwrap_or_else(|| panic!("no node {node} in {history}"))
}

/// Waits until `#session-state` says `state` exactly.
#[track_caller]
fn wait_state(browser: &Browser, state: &str) {
    browser.wait_until(
        &format!("#session-state to say {state:?}"),
        "const s = document.querySelector('#session-state'); \
         return s !== null && s.textContent.trim() === arguments[0]",
        &[state.into()],
    );
}

#[test]
fn retries_a_fallback_a_suspension_and_the_diagnostics_of_a_rejected_request() {
    let web = WebOmni::start();
    let session = web.omni.new_session();
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    browser.open_session(&web, &session);

    // Overloaded once: the retry notice while it heals, then the answer.
    browser.send_prompt("[demo:503] heal me, first of its kind");
    browser.wait_for_text("#activity .notice.retrying", "attempt 1");
    let notice = browser.text("#activity .notice.retrying .notice-text");
    assert!(notice.contains("trying again"), "a countdown: {notice:?}");
    let healed = browser.wait_for_answer("heal me, first of its kind");
    assert_eq!(
        stored(&web, &session, healed)["model"]["model"],
        "omni-demo"
    );

    // Out of quota: the fallback answers, and the notice says so.
    browser.send_prompt("[demo:fallback] who answers this one?");
    browser.wait_for_text("#activity .notice.fallback", "omni-demo-lite");
    let fallen = browser.wait_for_answer("I am omni-demo-lite");
    assert_eq!(
        stored(&web, &session, fallen)["model"]["model"],
        "omni-demo-lite"
    );

    // Refused three times: suspended until Resume.
    browser.send_prompt("[demo:blocked] not this");
    wait_state(&browser, "pending prompt");
    browser.click_enabled("button#retry");
    wait_state(&browser, "pending prompt");
    browser.click_enabled("button#retry");
    wait_state(&browser, "suspended");
    assert_eq!(web.session(&session)["suspended"], true);
    browser.click_enabled("button#resume");
    wait_state(&browser, "pending prompt");
    assert_eq!(web.session(&session)["suspended"], false);
    browser.click_enabled("button#back");
    wait_state(&browser, "idle");

    // Rejected: left as it is, then its record and bundle in the diagnostics dialog.
    browser.send_prompt("[demo:400] reject this");
    browser.click("dialog#recovery[open] button.recovery-choice[data-action=ignore]");
    browser.wait_gone("dialog#recovery");
    assert_eq!(web.session(&session)["needs_recovery"], Value::Null);
    browser.click("button#diagnostics-button");
    browser.wait_for("dialog#diagnostics[open] .diag-record");
    let record = browser.wait_until(
        "the rejected request's record in the diagnostics dialog",
        "const r = [...document.querySelectorAll('dialog#diagnostics .diag-record')] \
             .find(r => r.textContent.includes('HTTP 400')); \
         return r ? [r.dataset.error, r.querySelector('a.bundle[download]').href] : null",
        &[],
    );
    let (error, href) = (record[0].as_str().unwrap(), record[1].as_str().unwrap());
    let bundle = browser.js(
        "return fetch(arguments[0]).then(r => r.json())",
        &[href.into()],
    );
    assert_eq!(bundle["bundle"], "omni diagnostic bundle", "{bundle}");
    let errors = bundle["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "the one error asked for: {bundle}");
    assert_eq!(errors[0]["id"], error);
    assert_eq!(errors[0]["response"]["status"], 400, "{bundle}");
    assert!(
        errors[0]["session"].as_str().unwrap().starts_with(&session),
        "{bundle}"
    );
    browser.screenshot("diagnostics-dialog");
    browser.assert_console_clean(&[]);
}
