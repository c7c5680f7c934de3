//! A page that follows what other clients do, in the browser: opened while `omnictl`'s
//! answer streams, it shows that answer from its first word and can stop it; Redo is
//! enabled exactly when the daemon has a move to take back; a rename and a model switch
//! made elsewhere show at once.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, WebOmni};

/// Waits until `button#redo` is enabled (or, with `enabled` false, disabled).
#[track_caller]
fn wait_redo(browser: &Browser, enabled: bool) {
    browser.wait_until(
        &format!("#redo to be enabled: {enabled}"),
        "const b = document.querySelector('button#redo'); \
         return b !== null && b.disabled === !arguments[0]",
        &[enabled.into()],
    );
}

#[test]
fn a_page_opened_mid_answer_shows_it_whole_and_every_change_made_elsewhere() {
    let web = WebOmni::start();
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    let session = web.omni.new_session();

    // omnictl's slow answer is on its way before the page opens.
    let mut sending = web
        .omni
        .spawn_ctl(&["send", "-s", &session, "tell me a story [demo:slow]"]);
    let first = sending.read_texts(2).concat();
    browser.open_session(&web, &session);
    browser.wait_until(
        "the page to show the answer in flight from its first word, with Stop enabled",
        "const s = document.querySelector('#transcript .entry.streaming .entry-text'); \
         const stop = document.querySelector('button#stop'); \
         return s !== null && s.textContent.startsWith(arguments[0]) && !stop.disabled",
        &[first.as_str().into()],
    );
    browser.click("button#stop");
    let stopped = sending.finish();
    assert_ne!(stopped.code, 0, "omnictl's send was cancelled: {stopped:?}");
    browser.wait_gone("#transcript .entry.streaming");

    // Redo: only once there is a move to take back, and not after it was taken back.
    wait_redo(&browser, false);
    web.omni.ctl(&["back", "-s", &session]).ok();
    wait_redo(&browser, true);
    assert_eq!(web.session(&session)["can_redo"], true);
    browser.click("button#redo");
    wait_redo(&browser, false);
    assert_eq!(web.session(&session)["can_redo"], false);

    // A rename and a model switch from another client.
    web.omni
        .ctl(&["rename", "-s", &session, "Renamed elsewhere"])
        .ok();
    browser.wait_for_text("#session-title", "Renamed elsewhere");
    web.omni
        .ctl(&["model", "-s", &session, "omni-demo-lite"])
        .ok();
    browser.wait_for_text("#session-model", "omni-demo-lite");
    browser.assert_console_clean(&[]);
}

/// A browser keeps at most six connections to one host, and a following page holds one:
/// pages left behind (in the back-forward cache) let theirs go, so page after page opens.
#[test]
fn page_after_page_of_sessions_never_runs_the_browser_out_of_connections() {
    let web = WebOmni::start();
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);
    let session = web.omni.new_session();
    web.omni.ctl(&["send", "-s", &session, "remember me"]).ok();
    for visit in 0..8 {
        browser.goto("about:blank");
        browser.goto(&web.url(&format!("/#/s/{session}")));
        browser.wait_until(
            &format!("visit {visit}: the transcript and the live state"),
            "const t = document.querySelector('#transcript'); \
             return t !== null && t.textContent.includes('remember me') && \
                 document.querySelector('#live-state').textContent === 'live'",
            &[],
        );
    }
    browser.assert_console_clean(&[]);
}
