//! `cargo build --release -p omnid -p omnictl && cargo bench -p omni-tests --bench web_open`:
//! how long the web app takes to open a 10,000-turn session, against a 10-turn one in the
//! same run. A real `omnid --demo` serves the page and headless Chromium opens it; the time
//! is read from the page's own performance marks (`omni:transcript-shown`,
//! `omni:tree-shown`), so no polling delay is counted. Each figure is the median of five
//! opens and is printed as `FIGURE name value`:
//!
//! | figure | what |
//! |---|---|
//! | `web_open_ms_10` / `web_open_ms_10k` | a fresh page load of the session until its transcript and its tree are drawn |
//! | `web_open_ratio_10k` | the 10,000-turn session ÷ the 10-turn one |
//! | `web_switch_ms_10` / `web_switch_ms_10k` | the same from the sessions list, the app already loaded |
//! | `web_switch_ratio_10k` | the 10,000-turn session ÷ the 10-turn one |

#![allow(clippy::unwrap_used)] // a bench that cannot set up should stop loudly

use omni_tests::browser::{Browser, BrowserOptions, WebOmni};

/// Opens per figure; the median is printed.
const OPENS: usize = 5;

/// Waits until both marks are set; returns the later one's time (ms since navigation).
const BOTH_SHOWN: &str = "
    const at = (name) => performance.getEntriesByName(name, 'mark')[0]?.startTime;
    const t = at('omni:transcript-shown'), g = at('omni:tree-shown');
    return t === undefined || g === undefined ? null : Math.max(t, g)";

fn main() {
    let web = WebOmni::start();
    let small = web.session_of(10);
    let large = web.session_of(10_000);
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);

    let open_small = median((0..OPENS).map(|_| fresh_open(&browser, &web, &small)));
    let open_large = median((0..OPENS).map(|_| fresh_open(&browser, &web, &large)));
    println!("opening a session in a fresh page: 10 turns vs 10,000 turns");
    figure("web_open_ms_10", open_small);
    figure("web_open_ms_10k", open_large);
    figure("web_open_ratio_10k", open_large / open_small);

    let switch_small = median((0..OPENS).map(|_| switch_to(&browser, &web, &small)));
    let switch_large = median((0..OPENS).map(|_| switch_to(&browser, &web, &large)));
    println!("opening a session from the sessions list: 10 turns vs 10,000 turns");
    figure("web_switch_ms_10", switch_small);
    figure("web_switch_ms_10k", switch_large);
    figure("web_switch_ratio_10k", switch_large / switch_small);
}

/// Prints a figure in the one form tools read: `FIGURE name value`.
fn figure(name: &str, value: f64) {
    println!("FIGURE {name} {value:.3}");
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut all: Vec<f64> = values.collect();
    all.sort_by(f64::total_cmp);
    all[all.len() / 2]
}

/// A fresh page load of the session: ms from navigation until transcript and tree are drawn.
fn fresh_open(browser: &Browser, web: &WebOmni, session: &str) -> f64 {
    browser.goto("about:blank");
    browser.goto(&web.url(&format!("/#/s/{session}")));
    shown_at(browser)
}

/// From the sessions list of a loaded app: ms from the click until both are drawn.
fn switch_to(browser: &Browser, web: &WebOmni, session: &str) -> f64 {
    browser.goto("about:blank");
    browser.goto(&web.url("/#/"));
    browser.wait_for("#session-list a.session-row");
    let started = browser.js(
        "performance.clearMarks(); const t = performance.now(); \
         location.hash = '#/s/' + arguments[0]; return t",
        &[session.into()],
    );
    shown_at(browser) - started.as_f64().unwrap()
}

fn shown_at(browser: &Browser) -> f64 {
    let at = browser.wait_until(
        "the session's transcript and tree to be drawn",
        BOTH_SHOWN,
        &[],
    );
    at.as_f64().unwrap()
}
