//! Steps through Omni's web app that most browser tests take, written against the page's
//! selectors: make a session from the list, send a prompt from the composer, wait for the
//! stored answer, open a session by its address, watch an answer stream.

use serde_json::Value;

use super::{Browser, WebOmni};

/// Records whether an `.entry.streaming` appears and each length its text had:
/// `window.omniStream = {seen, lengths}`.
const WATCH_STREAM: &str = "
    window.omniStream = {seen: false, lengths: []};
    const watch = () => {
        const s = document.querySelector('#transcript .entry.streaming');
        if (!s) return;
        window.omniStream.seen = true;
        const text = s.querySelector('.entry-text');
        const n = text ? text.textContent.length : 0;
        const lengths = window.omniStream.lengths;
        if (lengths[lengths.length - 1] !== n) lengths.push(n);
    };
    new MutationObserver(watch).observe(document.body,
        {subtree: true, childList: true, characterData: true});
    return true";

/// The `.entry` of node `node` in the transcript, as a selector.
pub fn entry(node: u64) -> String {
    format!("#transcript .entry[data-node=\"{node}\"]")
}

/// The stored entries of the transcript, with a role (`.entry[data-role=ROLE]`).
pub fn entries(role: &str) -> String {
    format!("#transcript .entry[data-node][data-role={role}]")
}

impl Browser {
    /// The session the address bar shows (`#/s/ID`).
    #[track_caller]
    pub fn session_in_url(&self) -> String {
        let url = self.url();
        url.split_once("#/s/")
            .map(|(_, rest)| {
                rest.split(['?', '/'])
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| panic!("the address bar shows no session: {url}"))
    }

    /// Opens the sessions list, clicks `#new-session`, and waits for the new session's
    /// page; returns its id.
    #[track_caller]
    pub fn new_session_from_list(&self, web: &WebOmni) -> String {
        self.goto(&web.url("/#/"));
        self.click("button#new-session");
        self.wait_until(
            "#new-session to open the new session's page",
            "return location.hash.startsWith('#/s/') && \
             document.querySelector('textarea#prompt') !== null",
            &[],
        );
        self.session_in_url()
    }

    /// Opens a session's page and waits for its composer.
    #[track_caller]
    pub fn open_session(&self, web: &WebOmni, session: &str) {
        self.goto(&web.url(&format!("/#/s/{session}")));
        self.wait_for("textarea#prompt");
        self.wait_for("#transcript");
    }

    /// Types `prompt` into `#prompt` and clicks `#send`.
    #[track_caller]
    pub fn send_prompt(&self, prompt: &str) {
        self.type_into("textarea#prompt", prompt);
        self.click("button#send");
    }

    /// Records, from now on, whether an answer streams into the transcript
    /// (`.entry.streaming`) and each length its text had; [`Browser::streamed`] reads it.
    #[track_caller]
    pub fn watch_streaming(&self) {
        self.js(WATCH_STREAM, &[]);
    }

    /// What [`Browser::watch_streaming`] saw: `{seen, lengths}`.
    #[track_caller]
    pub fn streamed(&self) -> Value {
        self.js("return window.omniStream", &[])
    }

    /// Whether node `node`'s entry is shown within the transcript's visible part.
    #[track_caller]
    pub fn entry_in_view(&self, node: u64) -> bool {
        let seen = self.js(
            "const e = document.querySelector(arguments[0]); \
             const box = document.querySelector('#transcript').getBoundingClientRect(); \
             if (e === null) return false; \
             const r = e.getBoundingClientRect(); \
             return r.bottom > box.top && r.top < box.bottom",
            &[entry(node).into()],
        );
        seen == Value::Bool(true)
    }

    /// Waits until a stored model entry whose text contains `text` is in the transcript
    /// and nothing streams any more; returns its node id.
    #[track_caller]
    pub fn wait_for_answer(&self, text: &str) -> u64 {
        let node = self.wait_until(
            &format!("a stored answer containing {text:?}"),
            "const done = document.querySelector('#transcript .entry.streaming') === null; \
             const hit = [...document.querySelectorAll(arguments[0])] \
                 .find(e => e.textContent.includes(arguments[1])); \
             return done && hit ? hit.dataset.node : null",
            &[entries("model").into(), text.into()],
        );
        node_id(&node)
    }
}

/// A node id from what a script returned (a number or a `data-node` string).
#[track_caller]
pub fn node_id(value: &Value) -> u64 {
    value
        .as_u64()
        .or_else(|| value.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a node id: {value}"))
}
