//! Finding a session and reading a long one, in the browser: the sessions list pages by
//! fifty (More sessions loads the rest) and filters by origin and the trash; a search hit
//! opens its session at the node it found, in view, marked and focused; a 300-round
//! session opens at its latest turns only, scrolling to the top loads earlier ones while
//! the turn the reader was looking at stays in view, and its tree labels the rows scrolled
//! to.
#![allow(clippy::unwrap_used)] // in tests a panic is the failure report

use omni_tests::browser::{Browser, BrowserOptions, Key, WebOmni, entry, node_id};

/// Rounds of the long session (600 nodes).
const ROUNDS: u64 = 300;

/// Empty sessions made so that the list has more than a page of them.
const EMPTY: usize = 55;

/// The sessions the list shows, by id.
fn rows(browser: &Browser) -> Vec<String> {
    let ids = browser.js(
        "return [...document.querySelectorAll('#session-list a.session-row')] \
             .map(r => r.dataset.session)",
        &[],
    );
    serde_json::from_value(ids).unwrap()
}

/// Waits until the list shows session `id` alone.
#[track_caller]
fn wait_only(browser: &Browser, what: &str, id: &str) {
    browser.wait_until(
        what,
        "const shown = [...document.querySelectorAll('#session-list a.session-row')] \
             .map(r => r.dataset.session); \
         return document.querySelector('.list-status .loading') === null && \
             shown.length === 1 && shown[0] === arguments[0]",
        &[id.into()],
    );
}

/// Records every entry that gets marked `.target`: `window.omniTargets` (node ids).
const WATCH_TARGETS: &str = "
    window.omniTargets = [];
    new MutationObserver((records) => {
        for (const r of records) {
            if (r.target.classList && r.target.classList.contains('target')) {
                window.omniTargets.push(r.target.dataset.node);
            }
        }
    }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['class']});
    return true";

#[test]
fn page_and_filter_the_list_open_a_search_hit_and_scroll_back_through_a_long_session() {
    let web = WebOmni::start();
    let long = web.session_of(ROUNDS);
    let trashed = web.omni.new_session();
    web.omni
        .ctl(&["send", "-s", &trashed, "throw this away"])
        .ok();
    web.omni.ctl(&["delete", "-s", &trashed]).ok();
    web.empty_sessions(EMPTY);
    let all = web.omni.api().get("/v1/sessions?limit=1000").json();
    let listed = all["sessions"].as_array().unwrap().len();
    assert!(listed > 50, "more than a page: {listed}");
    let browser = Browser::start(BrowserOptions::laptop());
    browser.login(&web);

    // A page, then the rest with More sessions.
    browser.wait_for("#session-list a.session-row");
    let first = rows(&browser).len();
    assert!(
        (50..listed).contains(&first),
        "a page of {first} of {listed}"
    );
    browser.click("button#more-sessions");
    browser.wait_until(
        "More sessions to show every session and go away",
        "return document.querySelectorAll('#session-list a.session-row').length === arguments[0] \
             && document.querySelector('button#more-sessions') === null",
        &[listed.into()],
    );
    assert!(
        !rows(&browser).contains(&trashed),
        "the trash is not listed"
    );

    // Filters: imported ones only, then the trash only.
    browser.select("select#filter-origin", "import");
    wait_only(
        &browser,
        "the origin filter to leave the imported session",
        &long,
    );
    browser.select("select#filter-origin", "");
    browser.click("input#filter-trash");
    wait_only(
        &browser,
        "the trash filter to show the deleted session",
        &trashed,
    );
    browser.click("input#filter-trash");
    browser.wait_until(
        "the list to show every session again",
        "return document.querySelectorAll('#session-list a.session-row').length >= 50",
        &[],
    );

    // Search: a hit opens its session at its node, in view, marked and focused.
    let node = 2 * 150 + 1;
    browser.type_into("input#search", "150");
    browser.press(&[], Key::Enter);
    let hit = format!("a.search-hit[data-session=\"{long}\"][data-node=\"{node}\"]");
    browser.wait_for(&hit);
    let marked = browser.text(&format!("{hit} mark"));
    assert_eq!(marked, "150", "the match is marked");
    browser.js(WATCH_TARGETS, &[]);
    browser.click(&hit);
    browser.wait_until(
        "the hit's node to be focused in its session",
        "const e = document.activeElement; \
         return e !== null && e.matches('#transcript .entry') && e.dataset.node === arguments[0]",
        &[node.to_string().into()],
    );
    assert!(
        browser.url().ends_with(&format!("#/s/{long}/{node}")),
        "{}",
        browser.url()
    );
    assert!(browser.entry_in_view(node), "{}", browser.report());
    let targets = browser.js("return window.omniTargets", &[]);
    assert!(
        targets
            .as_array()
            .unwrap()
            .contains(&node.to_string().into()),
        "the node was marked as the target: {targets}"
    );

    // The long session opens at its latest turns; the top loads earlier ones in place.
    browser.open_session(&web, &long);
    let last = 2 * ROUNDS;
    browser.wait_for(&entry(last));
    browser.wait_until(
        "the latest turn to be in view",
        "const e = document.querySelector(arguments[0]); \
         const box = document.querySelector('#transcript').getBoundingClientRect(); \
         return e !== null && e.getBoundingClientRect().top < box.bottom",
        &[entry(last).into()],
    );
    let shown = browser.count("#transcript .entry[data-node]");
    assert!(
        shown > 0 && (shown as u64) < last,
        "a page of the {last} nodes: {shown}"
    );
    let looked_at = browser.js(
        "const box = document.querySelector('#transcript'); box.scrollTop = 0; \
         const top = box.getBoundingClientRect().top; \
         return [...box.querySelectorAll('.entry[data-node]')] \
             .find(e => e.getBoundingClientRect().bottom > top).dataset.node",
        &[],
    );
    let looked_at = node_id(&looked_at);
    browser.wait_until(
        "scrolling to the top to load earlier turns",
        "return document.querySelectorAll('#transcript .entry[data-node]').length > arguments[0]",
        &[shown.into()],
    );
    assert!(
        browser.entry_in_view(looked_at),
        "node {looked_at}, read before the earlier turns came, stays in view\n{}",
        browser.report()
    );

    // The tree's first rows, far from any turn the transcript loaded, get their texts.
    browser.js(
        "let box = document.querySelector('#tree svg').parentElement; \
         while (box && getComputedStyle(box).overflowY !== 'auto' && \
             getComputedStyle(box).overflowY !== 'scroll') box = box.parentElement; \
         box.scrollTop = 0; return true",
        &[],
    );
    browser.wait_until(
        "the tree's first node to be labelled with its prompt",
        "const row = document.querySelector('#tree svg g[data-node=\"1\"]'); \
         return row !== null && !row.classList.contains('pending') && \
             row.textContent.includes('a question worth asking (0)')",
        &[],
    );
    browser.assert_console_clean(&[]);
}
