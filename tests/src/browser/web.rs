//! A demo daemon serving the web app on a loopback port, and a browser logged in to it
//! through the one-time link `omnictl web` prints.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Browser;
use super::page::WAIT;
use crate::harness::Omni;

/// `omnid --demo --web-listen 127.0.0.1:0`, with the address it serves the web app on.
pub struct WebOmni {
    /// The daemon (drive it with `omnictl` through [`Omni::ctl`]).
    pub omni: Omni,
    /// Where the web app is served.
    pub address: SocketAddr,
}

impl WebOmni {
    /// Starts a demo daemon serving the web app.
    #[track_caller]
    pub fn start() -> Self {
        let omni = Omni::builder()
            .args(&["--demo", "--web-listen", "127.0.0.1:0"])
            .start();
        let status = omni.ctl(&["--json", "status"]).ok().json();
        let address = status["web_address"]
            .as_str()
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("status shows the web app's address: {status}"));
        WebOmni { omni, address }
    }

    /// `http://ADDRESS` followed by `path` (e.g. `/#/status`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    /// A fresh one-time login link from `omnictl web`.
    #[track_caller]
    pub fn login_link(&self) -> String {
        let out = self.omni.ctl(&["web"]).ok();
        let link = out.stdout.trim().to_string();
        assert!(
            link.starts_with(&self.url("/login?key=")),
            "omnictl web prints the link: {}",
            out.stdout
        );
        link
    }

    /// The sessions as `omnictl --json sessions` lists them.
    #[track_caller]
    pub fn sessions(&self) -> Vec<Value> {
        let listed = self.omni.ctl(&["--json", "sessions"]).ok().json();
        match listed {
            Value::Array(sessions) => sessions,
            other => other["sessions"].as_array().cloned().unwrap_or_default(),
        }
    }

    /// A session's summary and state, from the HTTP API (`GET /v1/sessions/ID`).
    #[track_caller]
    pub fn session(&self, id: &str) -> Value {
        let reply = self.omni.api().get(&format!("/v1/sessions/{id}"));
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()
    }

    /// A session's history, from the HTTP API (`GET /v1/sessions/ID/history`).
    #[track_caller]
    pub fn history(&self, id: &str) -> Value {
        let reply = self.omni.api().get(&format!("/v1/sessions/{id}/history"));
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()
    }
}

impl WebOmni {
    /// Waits until the session's head (from the HTTP API) satisfies `ok`; returns it.
    #[track_caller]
    pub fn wait_for_head(&self, session: &str, what: &str, ok: impl Fn(u64) -> bool) -> u64 {
        let deadline = Instant::now() + WAIT;
        loop {
            let summary = self.session(session);
            let head = summary["head"].as_u64().unwrap_or_default();
            if ok(head) {
                return head;
            }
            assert!(
                Instant::now() < deadline,
                "waited {WAIT:?} for {what}; the session is now {summary}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Browser {
    /// Follows a fresh login link of `web`: checks the secret left the address bar and
    /// waits for the app to have drawn its first page.
    #[track_caller]
    pub fn login(&self, web: &WebOmni) {
        let link = web.login_link();
        self.goto(&link);
        self.wait_until(
            "the app to leave its loading state after the login",
            "return document.querySelector('#app') !== null && \
             document.querySelector('#app > .loading') === null",
            &[],
        );
        let url = self.url();
        assert!(
            !url.contains("key=") && url.starts_with(&web.url("/")),
            "the address bar keeps no secret after the login: {url}"
        );
    }
}
