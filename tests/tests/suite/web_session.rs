//! A session in the browser, as a person uses it: log in through the link, make a session
//! from the list, send a prompt and watch it stream, undo (the answer struck through and
//! marked `[ REVERTED ]`), redo, branch and check a branch out from the tree, and follow a
//! send made by `omnictl` in another process as it happens.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, WebOmni, entries, entry};
use serde_json::Value;

/// The session's head, from the HTTP API.
fn head(web: &WebOmni, session: &str) -> u64 {
    web.session(session)["head"].as_u64().unwrap()
}

/// Waits until `node`'s entry is shown reverted (or, with `reverted` false, not).
#[track_caller]
fn wait_reverted(browser: &Browser, node: u64, reverted: bool) {
    browser.wait_until(
        &format!("node {node} to be shown reverted: {reverted}"),
        "const e = document.querySelector(arguments[0]); \
         return e !== null && e.classList.contains('reverted') === arguments[1]",
        &[entry(node).into(), reverted.into()],
    );
}

/// Asserts `node`'s entry is marked `[ REVERTED ] ...` and its text struck through.
#[track_caller]
fn assert_struck_through(browser: &Browser, node: u64) {
    let mark = browser.text(&format!("{} .reverted-mark", entry(node)));
    assert!(
        mark.trim_start().starts_with("[ REVERTED ]"),
        "the mark says why: {mark:?}"
    );
    let struck = browser.js(
        "const e = document.querySelector(arguments[0]); \
         const text = e.querySelector('.entry-text'); \
         return [e, text].filter(x => x) \
             .map(x => getComputedStyle(x).textDecorationLine).join(' ')",
        &[entry(node).into()],
    );
    assert!(
        struck.as_str().unwrap().contains("line-through"),
        "a reverted entry's text is struck through: {struck}\n{}",
        browser.html(&entry(node))
    );
}

#[test]
fn send_watch_it_stream_undo_redo_branch_check_out_and_follow_another_client() {
    let web = WebOmni::start();
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    browser.wait_for("#session-list");
    let session = browser.new_session_from_list(&web);

    // Send, and see the answer stream in before it is stored.
    browser.watch_streaming();
    browser.send_prompt("hello from the browser");
    let answer = browser.wait_for_answer("You said: \"hello from the browser\"");
    let stream = browser.streamed();
    assert_eq!(
        stream["seen"], true,
        "an .entry.streaming was shown: {stream}"
    );
    assert!(
        stream["lengths"].as_array().unwrap().len() > 2,
        "its text grew as the words arrived: {stream}"
    );
    let prompt = browser.text(&format!("{} .entry-text", entries("user")));
    assert!(prompt.contains("hello from the browser"), "{prompt}");
    assert_eq!(head(&web, &session), answer);

    // Undo: the answer stays, struck through; redo brings it back.
    browser.click("button#undo");
    wait_reverted(&browser, answer, true);
    assert_struck_through(&browser, answer);
    assert_ne!(head(&web, &session), answer, "undo moved the head");
    browser.click("button#redo");
    wait_reverted(&browser, answer, false);
    assert_eq!(head(&web, &session), answer, "redo moved it back");

    // Back, and a second prompt: a branch beside the first.
    browser.click("button#back");
    web.wait_for_head(&session, "back to move the head off the answer", |h| {
        h != answer
    });
    browser.send_prompt("a second branch");
    let second = browser.wait_for_answer("You said: \"a second branch\"");
    assert_eq!(head(&web, &session), second);

    // Check the first answer out from the tree.
    let row = format!("#tree svg.omni-tree g[data-node=\"{answer}\"]");
    browser.click(&row);
    browser.wait_until(
        "the transcript to show the first branch after the checkout",
        "const shown = document.querySelector(arguments[0]); \
         return shown !== null && !shown.classList.contains('reverted') && \
             document.querySelector('#transcript').textContent.includes('hello from the browser')",
        &[entry(answer).into()],
    );
    assert_eq!(
        head(&web, &session),
        answer,
        "the click checked node {answer} out"
    );
    let history = web.history(&session);
    assert_eq!(history["head"], answer);

    // A send from another process shows up live.
    browser.wait_for_text("#live-state", "live");
    let other = web
        .omni
        .ctl(&["--json", "send", "-s", &session, "sent by omnictl"])
        .ok();
    let result: Value = serde_json::from_str(other.stdout.lines().last().unwrap()).unwrap();
    let node = result["node"].as_u64().unwrap();
    browser.wait_until(
        "omnictl's prompt and answer to appear in the open page",
        "const t = document.querySelector('#transcript').textContent; \
         return t.includes('sent by omnictl') && document.querySelector(arguments[0]) !== null",
        &[entry(node).into()],
    );

    // A tree with branches and a reverted turn, for the record.
    browser.click("button#undo");
    wait_reverted(&browser, node, true);
    browser.screenshot("session-tree-reverted");
    browser.assert_console_clean(&[]);
}
