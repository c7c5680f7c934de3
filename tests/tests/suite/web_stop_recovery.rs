//! When an answer goes wrong, in the browser: Stop cuts a slow answer short (what came is
//! kept out of the context and shown so) and, its prompt dropped with Back, the session
//! goes on; a request the API
//! rejects opens the recovery dialog with the API's message and a button per way out (one
//! for ways out that take the same nodes out), and the choice is applied through the API,
//! the dialog fitting a 1400×900 window; Back while an answer streams stops it and takes
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
             .map(b => [b.dataset.actions, b.querySelector('.takes')?.textContent || ''])",
        &[],
    );
    let shown: Vec<(String, String)> = serde_json::from_value(shown).unwrap();
    let actions: Vec<&str> = shown.iter().flat_map(|(a, _)| a.split(' ')).collect();
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

/// Where the element matching `selector` is: `seen` when it lies whole inside the window
/// and inside every box that scrolls around it (as it is now: nothing is scrolled to it),
/// else what cuts it.
const WHERE_IS: &str = "
    const e = document.querySelector(arguments[0]);
    if (e === null) return 'missing';
    const r = e.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
        return `outside the window: ${JSON.stringify(r)}`;
    }
    for (let box = e.parentElement; box; box = box.parentElement) {
        if (getComputedStyle(box).overflowY === 'visible') continue;
        const b = box.getBoundingClientRect();
        if (r.top < b.top - 1 || r.bottom > b.bottom + 1) {
            return `cut by ${box.tagName.toLowerCase()}.${box.className}: ${r.bottom} > ${b.bottom}`;
        }
    }
    return 'seen'";

#[test]
fn the_recovery_dialog_fits_a_1400_by_900_window_in_one_row_per_outcome() {
    let web = WebOmni::start();
    let browser = Browser::start(BrowserOptions::laptop().size(1400, 900));
    browser.login(&web);

    // Enough turns to compact, and a failed prompt after a pending one: all five ways
    // out are offered (the dialog, whose hints were cut).
    let tall = web.omni.new_session();
    for prompt in ["round one", "round two", "round three"] {
        web.omni.ctl(&["send", "-s", &tall, prompt]).ok();
    }
    web.omni
        .ctl(&["send", "-s", &tall, "[demo:blocked] not this"]);
    web.omni.ctl(&["send", "-s", &tall, "[demo:400] nor this"]);
    let summary = web.session(&tall);
    assert!(summary["needs_recovery"].is_string(), "{summary}");
    let offered = summary["recovery_choices"].as_array().unwrap().len();
    assert_eq!(offered, 5, "compact, deep, clear, ignore, retry: {summary}");
    browser.open_session(&web, &tall);
    browser.wait_for("dialog#recovery[open] .key-hints");
    browser.screenshot("recovery-dialog-1400x900");
    // The message, every way out, Leave and the keys are in sight as it opens.
    let parts = [
        ".api-message",
        "button.recovery-choice:first-child",
        "button.recovery-choice:last-child",
        "button.leave",
        ".key-hints",
    ];
    for part in parts {
        let seen = browser.js(WHERE_IS, &[format!("dialog#recovery {part}").into()]);
        assert_eq!(
            seen,
            "seen",
            "{part} is in sight\n{}",
            browser.html("dialog#recovery")
        );
    }
    // However many ways out there are (the list made three times as long here), the
    // dialog stays in the window with Leave and the keys in sight: the ways out scroll.
    browser.js(
        "const list = document.querySelector('dialog#recovery .recovery-choices'); \
         const rows = [...list.children]; \
         for (let i = 0; i < 2; i++) list.append(...rows.map(r => r.cloneNode(true)))",
        &[],
    );
    for part in ["h2", ".api-message", "button.leave", ".key-hints"] {
        let seen = browser.js(WHERE_IS, &[format!("dialog#recovery {part}").into()]);
        assert_eq!(
            seen,
            "seen",
            "{part} stays in sight\n{}",
            browser.html("dialog#recovery")
        );
    }
    let last = "dialog#recovery button.recovery-choice:last-child";
    browser.js(
        "document.querySelector(arguments[0]).scrollIntoView({block: 'nearest'})",
        &[last.into()],
    );
    assert_eq!(
        browser.js(WHERE_IS, &[last.into()]),
        "seen",
        "the last way out is reached"
    );
    assert_eq!(
        browser.js(WHERE_IS, &["dialog#recovery .key-hints".into()]),
        "seen"
    );
    browser.click("dialog#recovery button.leave");
    browser.wait_gone("dialog#recovery[open]");

    // The failed prompt alone at the head: deep rollback and clear turn take out the same
    // node, so they are one row (as in the chat), named by both; choosing it applies deep.
    let session = web.omni.new_session();
    web.omni
        .ctl(&["send", "-s", &session, "a first round"])
        .ok();
    browser.open_session(&web, &session);
    browser.send_prompt("[demo:400] this one breaks");
    browser.wait_for("dialog#recovery[open] button.recovery-choice");
    let summary = web.session(&session);
    let previews = summary["recovery_choices"].as_array().unwrap().clone();
    let drops = |action: &str| {
        let preview = previews.iter().find(|p| p["action"] == action);
        preview.map(|p| p["drops"].clone())
    };
    assert_eq!(
        drops("deep"),
        drops("clear"),
        "the same nodes out: {summary}"
    );
    let rows = browser.js(
        "return [...document.querySelectorAll('dialog#recovery button.recovery-choice')] \
             .map(b => [b.dataset.actions, b.querySelector('.choice-name').textContent])",
        &[],
    );
    let rows: Vec<(String, String)> = serde_json::from_value(rows).unwrap();
    assert_eq!(rows.len(), previews.len() - 1, "one row for both: {rows:?}");
    let merged = rows.iter().find(|(actions, _)| actions == "deep clear");
    let merged = merged.unwrap_or_else(|| panic!("a row for deep and clear: {rows:?}"));
    assert_eq!(merged.1, "deep rollback / clear turn");
    browser.click("dialog#recovery button.recovery-choice[data-actions=\"deep clear\"]");
    browser.wait_gone("dialog#recovery[open]");
    let summary = web.session(&session);
    assert_eq!(summary["needs_recovery"], Value::Null, "{summary}");
    assert_eq!(
        summary["head"], 2,
        "deep rollback took the failed prompt out"
    );
    browser.assert_console_clean(&[]);
}
