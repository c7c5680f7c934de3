//! The main screens, saved as screenshots (`<target>/browser-screenshots/`, kept by CI) and
//! checked for what a person would notice: the sessions list with its rows, the status
//! page, a phone-width window without sideways scrolling, and the dark theme.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, WebOmni};

/// Three sessions with turns to show: plain, markdown with code, and a branch.
fn sessions_to_show(web: &WebOmni) -> String {
    let omni = &web.omni;
    let plain = omni.new_session();
    omni.ctl(&["send", "-s", &plain, "What does undo do here?"])
        .ok();
    let markdown = omni.new_session();
    omni.ctl(&["send", "-s", &markdown, "[demo:markdown] show me the tree"])
        .ok();
    let branched = omni.new_session();
    omni.ctl(&["send", "-s", &branched, "first idea"]).ok();
    omni.ctl(&["back", "-s", &branched]).ok();
    omni.ctl(&["send", "-s", &branched, "second idea"]).ok();
    omni.ctl(&["send", "-s", &branched, "and a follow-up"]).ok();
    omni.ctl(&["undo", "-s", &branched]).ok();
    markdown
}

/// Asserts the page scrolls no wider than its window.
#[track_caller]
fn assert_no_sideways_scroll(browser: &Browser) {
    let widths = browser.js(
        "return [document.documentElement.scrollWidth, window.innerWidth]",
        &[],
    );
    let (scroll, window) = (widths[0].as_u64().unwrap(), widths[1].as_u64().unwrap());
    assert!(
        scroll <= window,
        "the page scrolls sideways: {scroll} > {window}"
    );
}

/// The relative luminance (0 dark .. 1 light) of the page's background.
fn background_luminance(browser: &Browser) -> f64 {
    let rgb = browser.js(
        "const bg = e => getComputedStyle(e).backgroundColor; \
         let c = bg(document.body); \
         if (c === 'transparent' || c.startsWith('rgba(0, 0, 0, 0')) c = bg(document.documentElement); \
         return c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number)",
        &[],
    );
    let channel = |i: usize| rgb[i].as_f64().unwrap() / 255.0;
    0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
}

#[test]
fn the_main_screens_on_a_laptop_a_phone_and_in_the_dark() {
    let web = WebOmni::start();
    let markdown = sessions_to_show(&web);

    let laptop = Browser::start(BrowserOptions::laptop());
    laptop.login(&web);
    laptop.wait_for("#session-list a.session-row");
    assert_eq!(laptop.count("#session-list a.session-row[data-session]"), 3);
    for part in [".title", ".origin", ".model", ".activity"] {
        laptop.wait_for(&format!("#session-list a.session-row {part}"));
    }
    laptop.screenshot("sessions-list");
    laptop.goto(&web.url("/#/status"));
    laptop.wait_for("#status-page #health");
    laptop.wait_for("#breakers .breaker");
    laptop.wait_for("#loaded-sessions");
    laptop.screenshot("status");
    laptop.open_session(&web, &markdown);
    laptop.wait_for("#transcript .entry[data-role=model] .entry-text pre code");
    laptop.wait_for("#tree svg.omni-tree g[data-node]");
    laptop.screenshot("session-markdown");
    assert!(background_luminance(&laptop) > 0.5, "light by default");
    laptop.assert_console_clean(&[]);
    drop(laptop);

    let phone = Browser::start(BrowserOptions::laptop().phone());
    phone.login(&web);
    phone.wait_for("#session-list a.session-row");
    assert_no_sideways_scroll(&phone);
    phone.screenshot("phone-sessions");
    phone.open_session(&web, &markdown);
    phone.wait_for("#transcript .entry[data-role=model]");
    assert_no_sideways_scroll(&phone);
    phone.screenshot("phone-session");
    phone.assert_console_clean(&[]);
    drop(phone);

    let dark = Browser::start(BrowserOptions::laptop().dark());
    dark.login(&web);
    dark.wait_for("#session-list a.session-row");
    dark.screenshot("dark-sessions");
    dark.open_session(&web, &markdown);
    dark.wait_for("#tree svg.omni-tree g[data-node]");
    assert!(background_luminance(&dark) < 0.5, "dark when the system is");
    dark.screenshot("dark-session");
    dark.assert_console_clean(&[]);
}
