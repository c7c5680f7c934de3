//! Changing course in the browser: Alt+E puts the last prompt back in the box to edit and
//! Escape cancels that; the Edit button of an earlier prompt does the same for it, and
//! sending the changed prompt makes a new branch from before it (the old turns shown
//! `[ REVERTED ] on another branch`, folded into one row a click unfolds, the tree with two
//! branches), the page following the new answer down to the end; the model dialog switches
//! the model the next answer comes from, and says so when the daemon refuses a model.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, Key, WebOmni, entries, entry};
use serde_json::Value;

/// Waits until `#edit-banner` is shown (or, with `shown` false, hidden).
#[track_caller]
fn wait_banner(browser: &Browser, shown: bool) {
    browser.wait_until(
        &format!("#edit-banner to be shown: {shown}"),
        "const b = document.querySelector('#edit-banner'); \
         return b !== null && b.hidden === !arguments[0]",
        &[shown.into()],
    );
}

/// The nodes whose entries are folded away (hidden) in the transcript.
fn folded(browser: &Browser) -> Vec<u64> {
    let nodes = browser.js(
        "return [...document.querySelectorAll('#transcript .entry[data-node]')] \
             .filter(e => e.hidden || e.offsetParent === null).map(e => Number(e.dataset.node))",
        &[],
    );
    serde_json::from_value(nodes).unwrap()
}

/// Records, from now on, each time the streaming answer changes, whether its end is in
/// the transcript's view: `window.omniFollow` (one boolean per change).
const WATCH_FOLLOW: &str = "
    window.omniFollow = [];
    const look = () => {
        const s = document.querySelector('#transcript .entry.streaming');
        if (!s) return;
        const box = document.querySelector('#transcript').getBoundingClientRect();
        const r = s.getBoundingClientRect();
        window.omniFollow.push(r.bottom <= box.bottom + 2 && r.bottom > box.top);
    };
    new MutationObserver(look).observe(document.querySelector('#transcript'),
        {subtree: true, childList: true, characterData: true});
    return true";

/// The text in `#prompt`.
fn prompt_text(browser: &Browser) -> String {
    let value = browser.js("return document.querySelector('#prompt').value", &[]);
    value.as_str().unwrap().to_string()
}

#[test]
fn edit_an_earlier_prompt_into_a_branch_then_switch_the_model() {
    let web = WebOmni::start();
    let session = web.omni.new_session();
    for prompt in ["the first prompt", "the second prompt"] {
        web.omni.ctl(&["send", "-s", &session, prompt]).ok();
    }
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    browser.open_session(&web, &session);
    browser.wait_for(&format!("{} button.edit", entry(3)));

    // Alt+E: the last prompt in the box, with the banner; Escape cancels.
    browser.click("textarea#prompt");
    browser.press(&[Key::Alt], 'e');
    wait_banner(&browser, true);
    assert_eq!(prompt_text(&browser), "the second prompt");
    assert!(
        browser.text("#edit-banner").contains("#3"),
        "{}",
        browser.html("#edit-banner")
    );
    browser.press(&[], Key::Escape);
    wait_banner(&browser, false);
    assert_eq!(prompt_text(&browser), "", "Escape empties the box");
    assert_eq!(
        web.session(&session)["head"],
        4,
        "a cancelled edit moves nothing"
    );

    // Edit the first prompt: sent changed, it branches from before it.
    browser.click(&format!("{} button.edit", entry(1)));
    wait_banner(&browser, true);
    assert_eq!(prompt_text(&browser), "the first prompt");
    assert!(browser.text("#edit-banner").contains("#1"));
    browser.type_into("textarea#prompt", ", edited");
    browser.press(&[], Key::Enter);
    let answer = browser.wait_for_answer("You said: \"the first prompt, edited\"");
    wait_banner(&browser, false);
    let reply = browser.text(&format!("{} .entry-text", entry(answer)));
    assert!(
        reply.contains("sent 1 message of context"),
        "the edited prompt went out without the turns after its parent: {reply}"
    );
    // The old branch folded into one row before the new one; a click shows it.
    browser.wait_for_text(".branch-fold", "4 turns on other branches — show");
    assert_eq!(folded(&browser), [1, 2, 3, 4]);
    browser.click(".branch-fold button.fold-toggle");
    browser.wait_for_text(".branch-fold", "4 turns on other branches — hide");
    assert_eq!(folded(&browser), Vec::<u64>::new());
    for node in 1..=4 {
        browser.wait_for_text(
            &format!("{} .reverted-mark", entry(node)),
            "[ REVERTED ] on another branch",
        );
    }
    let history = web.history(&session);
    let edited = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["text"] == "the first prompt, edited")
        .cloned()
        .unwrap();
    let root = |node: &Value| node["parent"].as_u64().unwrap_or(0) == 0;
    assert!(root(&edited), "a new root beside the first: {edited}");
    assert_eq!(history["head"], answer);
    let tree = web
        .omni
        .api()
        .get(&format!("/v1/sessions/{session}/tree"))
        .json();
    let roots = tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| root(n))
        .count();
    assert_eq!(roots, 2, "two branches: {tree}");
    browser.wait_until(
        "the tree to draw both branches' six nodes",
        "return document.querySelectorAll('#tree svg.omni-tree g.node[data-node]').length === 6",
        &[],
    );

    // The model dialog: a provider the daemon does not know is refused in the dialog.
    browser.click("button#model-button");
    browser.wait_for("dialog#model-dialog[open] input#model-input");
    browser.replace_text("input#model-input", "nope/x");
    browser.click("button#model-apply");
    browser.wait_until(
        "the refusal to be shown in the dialog",
        "const e = document.querySelector('dialog#model-dialog .dialog-error'); \
         return e !== null && !e.hidden && e.textContent.includes('nope')",
        &[],
    );
    assert_eq!(web.session(&session)["model"], "gemini/omni-demo");
    browser.replace_text("input#model-input", "omni-demo-lite");
    browser.click("button#model-apply");
    browser.wait_gone("dialog#model-dialog");
    browser.wait_for_text("#session-model", "omni-demo-lite");
    assert_eq!(web.session(&session)["model"], "gemini/omni-demo-lite");

    // The next answer comes from the model switched to.
    browser.send_prompt("who answers now?");
    let lite = browser.wait_for_answer("I am omni-demo-lite");
    let shown = browser.text(&format!("{} .model", entry(lite)));
    assert_eq!(shown, "gemini/omni-demo-lite");
    let history = web.history(&session);
    let stored = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == lite)
        .cloned()
        .unwrap();
    assert_eq!(stored["model"]["model"], "omni-demo-lite", "{stored}");
    assert_eq!(browser.count(&entries("model")), 4);
    browser.assert_console_clean(&["400 (Bad Request)"]); // the refused model
}

#[test]
fn an_edit_in_the_middle_follows_its_answer_and_folds_the_old_branch() {
    let web = WebOmni::start();
    let session = web.session_of(30); // prompts #1, #3, ... #59, answers after each
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    browser.open_session(&web, &session);
    browser.wait_for(&format!("{} button.edit", entry(41)));

    // Edit prompt #41, then scroll up to read what came before it.
    browser.click(&format!("{} button.edit", entry(41)));
    wait_banner(&browser, true);
    browser.js(
        "const t = document.querySelector('#transcript'); \
         const e = document.querySelector(arguments[0]); \
         t.scrollTop += e.getBoundingClientRect().top - t.getBoundingClientRect().top",
        &[entry(25).into()],
    );
    assert!(browser.entry_in_view(25) && !browser.entry_in_view(41));
    browser.replace_text("textarea#prompt", "[demo:long] the twentieth, edited");
    browser.js(WATCH_FOLLOW, &[]);
    browser.press(&[], Key::Enter);

    // The answer is followed as it streams, down to its stored end.
    let answer = browser.wait_for_answer("A long answer of");
    let follow: Vec<bool> =
        serde_json::from_value(browser.js("return window.omniFollow", &[])).unwrap();
    assert!(follow.len() > 2, "the answer streamed in: {follow:?}");
    assert!(
        follow.iter().all(|&seen| seen),
        "its end stayed in view as it grew: {follow:?}"
    );
    assert_eq!(answer, 62);
    browser.wait_until(
        "the transcript to show the stored answer's end",
        "const t = document.querySelector('#transcript'); \
         return t.scrollHeight - t.scrollTop - t.clientHeight < 80",
        &[],
    );
    assert!(browser.entry_in_view(answer));

    // Turns #41-#60 of the old branch are one folded row; the path before them is shown.
    let row = browser.text(".branch-fold");
    assert!(row.contains("20 turns on other branches — show"), "{row:?}");
    assert_eq!(folded(&browser), (41..=60).collect::<Vec<u64>>());
    assert_eq!(browser.count(".branch-fold"), 1);
    let toggle = ".branch-fold button.fold-toggle";
    assert_eq!(
        browser.attr(toggle, "aria-expanded").as_deref(),
        Some("false")
    );
    // A button: the keyboard unfolds and folds it as a click does.
    browser.js(
        "document.querySelector(arguments[0]).focus()",
        &[toggle.into()],
    );
    browser.press(&[], Key::Enter);
    browser.wait_for_text(".branch-fold", "20 turns on other branches — hide");
    assert_eq!(folded(&browser), Vec::<u64>::new());
    assert_eq!(
        browser.attr(toggle, "aria-expanded").as_deref(),
        Some("true")
    );
    assert_eq!(
        browser.focused(),
        "button.fold-toggle",
        "the focus stays on it"
    );
    browser.press(&[], ' ');
    browser.wait_for_text(".branch-fold", "20 turns on other branches — show");
    assert_eq!(folded(&browser), (41..=60).collect::<Vec<u64>>());
    browser.screenshot("session-branch-folded");
    browser.assert_console_clean(&[]);
}
