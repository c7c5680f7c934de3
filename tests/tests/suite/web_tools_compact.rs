//! Function calls and compaction in the browser: a model's function call waits in a form
//! for its result, where a result that is not JSON is refused on the spot and a JSON object
//! is sent, the continuation streaming in and being stored; in another session Skip undoes
//! the calls; Compact puts a summary in the older turns' place, and Undo right after it
//! brings the full context back (the summary shown reverted).
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, WebOmni, entries, entry, node_id};

/// The roles of a session's stored entries, in node order.
fn roles(web: &WebOmni, session: &str) -> Vec<String> {
    let history = web.history(session);
    history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["role"].as_str().unwrap().to_string())
        .collect()
}

/// Sends a function call's prompt from the page and waits for the form asking its result.
#[track_caller]
fn call_a_function(browser: &Browser) {
    browser.send_prompt("what is the weather? [demo:tool]");
    browser.wait_for("form#tool-results textarea.tool-result");
    browser.wait_gone("#transcript .entry.streaming");
}

#[test]
fn answer_a_function_call_skip_another_then_compact_and_undo_it() {
    let web = WebOmni::start();
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    let session = web.omni.new_session();
    browser.open_session(&web, &session);

    // The call waits in the form; a result that is not JSON sends nothing.
    call_a_function(&browser);
    let call = browser.text("form#tool-results .tool-call");
    assert!(
        call.contains("get_weather") && call.contains("Paris"),
        "the call and its arguments: {call:?}"
    );
    assert_eq!(
        web.session(&session)["pending_calls"][0]["name"],
        "get_weather"
    );
    browser.type_into("textarea.tool-result", "eighteen degrees");
    browser.click("button#send-tool-results");
    browser.wait_until(
        "the form to say the result is not JSON",
        "const e = document.querySelector('form#tool-results .field-error'); \
         return e !== null && !e.hidden && e.textContent.includes('not JSON')",
        &[],
    );
    assert_eq!(roles(&web, &session), ["user", "model"], "nothing was sent");

    // A JSON object: the continuation streams in and is stored.
    browser.watch_streaming();
    browser.replace_text("textarea.tool-result", r#"{"temp": 18}"#);
    browser.click("button#send-tool-results");
    let answer = browser.wait_for_answer("Thanks: get_weather returned");
    browser.wait_gone("form#tool-results");
    assert_eq!(
        browser.streamed()["seen"],
        true,
        "the continuation streamed in"
    );
    assert_eq!(roles(&web, &session), ["user", "model", "tool", "model"]);
    let history = web.history(&session);
    assert_eq!(history["head"], answer);
    let text = history["entries"][3]["text"].as_str().unwrap();
    assert!(
        text.contains(r#"{"temp":18}"#),
        "the result reached the model: {text}"
    );
    assert!(
        browser.count("#transcript details.result") > 0,
        "the result is shown"
    );

    // Another session: Skip undoes the calls.
    let skipped = web.omni.new_session();
    browser.open_session(&web, &skipped);
    call_a_function(&browser);
    browser.click("button#skip-tool-calls");
    browser.wait_gone("form#tool-results");
    browser.wait_for(&format!("{}.reverted", entry(2)));
    let summary = web.session(&skipped);
    assert_eq!(summary["head"], 1, "back on the prompt: {summary}");
    assert!(
        summary["pending_calls"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "no call waits any more: {summary}"
    );

    // Compact three rounds: a summary node in their place; Undo brings them back.
    let rounds = web.omni.new_session();
    for prompt in ["alpha one", "bravo two", "charlie three"] {
        web.omni.ctl(&["send", "-s", &rounds, prompt]).ok();
    }
    browser.open_session(&web, &rounds);
    browser.click_enabled("button#compact");
    browser.wait_for(&entries("summary"));
    let summary_node = node_id(&browser.js(
        "return document.querySelector(arguments[0]).dataset.node",
        &[entries("summary").into()],
    ));
    let history = web.history(&rounds);
    assert_eq!(history["head"], summary_node);
    let entries_now = history["entries"].as_array().unwrap();
    let summary_entry = entries_now
        .iter()
        .find(|e| e["id"] == summary_node)
        .unwrap();
    assert!(summary_entry["compaction"].is_object(), "{summary_entry}");
    assert_eq!(
        entries_now[0]["compacted"], true,
        "the first round is summarised"
    );
    browser.wait_for(&format!("{}.compacted", entry(1)));

    browser.click_enabled("button#undo");
    browser.wait_for_text(
        &format!("{} .reverted-mark", entry(summary_node)),
        "[ REVERTED ] undone",
    );
    browser.wait_gone("#transcript .entry.compacted");
    let history = web.history(&rounds);
    assert_eq!(history["head"], 6, "back on the summary's parent");
    assert!(
        history["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["compacted"] == false),
        "the full context again: {history}"
    );
    browser.assert_console_clean(&[]);
}
