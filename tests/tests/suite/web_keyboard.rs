//! The web app with the keyboard alone: `/` focuses the prompt, Enter sends, Alt+Z undoes
//! and Alt+Shift+Z redoes once the focus has left the text field (by Tab), `?` lists the
//! shortcuts, Alt+L opens the diagnostic logs, Escape closes each dialog.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, Key, WebOmni, entry};

#[test]
fn a_session_driven_with_keys_alone() {
    let web = WebOmni::start();
    let session = web.omni.new_session();
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    browser.open_session(&web, &session);
    // The page focuses the prompt once the session has loaded: only then is a blur final.
    browser.wait_until(
        "the prompt focused as the session opened",
        "return document.activeElement && document.activeElement.id === 'prompt'",
        &[],
    );
    browser.js(
        "document.activeElement && document.activeElement.blur()",
        &[],
    );
    browser.press(&[], '/');
    assert_eq!(
        browser.focused(),
        "textarea#prompt",
        "`/` focuses the prompt"
    );
    browser.type_keys("typed with keys");
    browser.press(&[Key::Shift], Key::Enter);
    browser.type_keys("on two lines");
    browser.press(&[], Key::Enter);
    let answer = browser.wait_for_answer("typed with keys");
    let history = web.history(&session);
    assert_eq!(
        history["entries"][0]["text"], "typed with keys\non two lines",
        "Shift+Enter is a new line, Enter sends"
    );

    browser.press(&[], Key::Tab);
    let focused = browser.focused();
    assert!(
        !focused.starts_with("textarea") && !focused.starts_with("input"),
        "Tab leaves the text field: {focused}"
    );
    browser.press(&[Key::Alt], 'z');
    browser.wait_until(
        "Alt+Z to undo the answer",
        "const e = document.querySelector(arguments[0]); \
         return e !== null && e.classList.contains('reverted')",
        &[entry(answer).into()],
    );
    assert_ne!(web.session(&session)["head"], answer);
    browser.press(&[Key::Alt, Key::Shift], 'Z');
    browser.wait_until(
        "Alt+Shift+Z to redo it",
        "const e = document.querySelector(arguments[0]); \
         return e !== null && !e.classList.contains('reverted')",
        &[entry(answer).into()],
    );
    assert_eq!(web.session(&session)["head"], answer);

    browser.press(&[], '?');
    browser.wait_for("dialog#shortcuts[open]");
    browser.press(&[], Key::Escape);
    browser.wait_gone("dialog#shortcuts[open]");
    browser.press(&[Key::Alt], 'l');
    browser.wait_for("dialog#diagnostics[open]");
    browser.press(&[], Key::Escape);
    browser.wait_gone("dialog#diagnostics[open]");
    browser.assert_console_clean(&[]);
}
