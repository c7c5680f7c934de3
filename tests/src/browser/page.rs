//! What a test does with the page: go to a URL, run a script, wait for a condition,
//! click, type and press keys as a person would. Elements are named by CSS selectors.
//! Every wait polls until a deadline and fails with the page's HTML and console.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::key::Key;
use serde_json::Value;

use super::Browser;

/// How long a wait lasts before it fails.
pub const WAIT: Duration = Duration::from_secs(15);

/// How often a wait looks again.
const POLL: Duration = Duration::from_millis(25);

/// Most characters of HTML a failure report shows.
const REPORT_HTML: usize = 12_000;

impl Browser {
    /// Opens `url` and waits for the page to load.
    #[track_caller]
    pub fn goto(&self, url: &str) {
        self.run(self.client().goto(url))
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
    }

    /// The address bar.
    #[track_caller]
    pub fn url(&self) -> String {
        self.run(self.client().current_url())
            .map(|u| u.to_string())
            .unwrap_or_else(|e| panic!("the current URL: {e}"))
    }

    /// Runs `body` as the body of a function in the page (its arguments are `args`) and
    /// returns what it returns.
    #[track_caller]
    pub fn js(&self, body: &str, args: &[Value]) -> Value {
        self.run(self.client().execute(body, args.to_vec()))
            .unwrap_or_else(|e| panic!("the script failed: {e}\n{body}\n{}", self.report()))
    }

    /// Waits until `body` (as in [`Browser::js`]) returns something truthy, and returns
    /// it; fails after [`WAIT`] saying `what` was awaited, with the page's HTML.
    #[track_caller]
    pub fn wait_until(&self, what: &str, body: &str, args: &[Value]) -> Value {
        self.wait_until_for(WAIT, what, body, args)
    }

    /// [`Browser::wait_until`] with its own deadline.
    #[track_caller]
    pub fn wait_until_for(&self, limit: Duration, what: &str, body: &str, args: &[Value]) -> Value {
        let deadline = Instant::now() + limit;
        let mut last_error = None;
        loop {
            // A page that is navigating fails a script: that is "not yet".
            match self.run(self.client().execute(body, args.to_vec())) {
                Ok(value) if truthy(&value) => return value,
                Ok(_) => {}
                Err(e) => last_error = Some(e.to_string()),
            }
            if Instant::now() >= deadline {
                panic!(
                    "waited {limit:?} for {what}{}\n{}",
                    last_error
                        .map(|e| format!(" (last script error: {e})"))
                        .unwrap_or_default(),
                    self.report()
                );
            }
            self.run(async { tokio::time::sleep(POLL).await });
        }
    }

    /// Waits until an element matches `selector`.
    #[track_caller]
    pub fn wait_for(&self, selector: &str) {
        self.wait_until(
            &format!("`{selector}` to appear"),
            "return document.querySelector(arguments[0]) !== null",
            &[selector.into()],
        );
    }

    /// Waits until no element matches `selector`.
    #[track_caller]
    pub fn wait_gone(&self, selector: &str) {
        self.wait_until(
            &format!("`{selector}` to go away"),
            "return document.querySelector(arguments[0]) === null",
            &[selector.into()],
        );
    }

    /// Waits until the text of the element matching `selector` contains `text`.
    #[track_caller]
    pub fn wait_for_text(&self, selector: &str, text: &str) {
        self.wait_until(
            &format!("`{selector}` to contain {text:?}"),
            "const e = document.querySelector(arguments[0]); \
             return e !== null && e.textContent.includes(arguments[1])",
            &[selector.into(), text.into()],
        );
    }

    /// How many elements match `selector`.
    #[track_caller]
    pub fn count(&self, selector: &str) -> usize {
        let n = self.js(
            "return document.querySelectorAll(arguments[0]).length",
            &[selector.into()],
        );
        n.as_u64().unwrap_or_default() as usize
    }

    /// The text of the first element matching `selector`; fails when there is none.
    #[track_caller]
    pub fn text(&self, selector: &str) -> String {
        let text = self.js(
            "const e = document.querySelector(arguments[0]); return e && e.textContent",
            &[selector.into()],
        );
        match text {
            Value::String(text) => text,
            _ => panic!("no `{selector}` on the page\n{}", self.report()),
        }
    }

    /// An attribute of the first element matching `selector` (`None` when it has none).
    #[track_caller]
    pub fn attr(&self, selector: &str, name: &str) -> Option<String> {
        self.wait_for(selector);
        let value = self.js(
            "return document.querySelector(arguments[0]).getAttribute(arguments[1])",
            &[selector.into(), name.into()],
        );
        value.as_str().map(String::from)
    }

    /// The outer HTML of the first element matching `selector` (empty when none).
    pub fn html(&self, selector: &str) -> String {
        let html = self.run(self.client().execute(
            "const e = document.querySelector(arguments[0]); return e ? e.outerHTML : ''",
            vec![selector.into()],
        ));
        html.ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default()
    }

    /// Clicks the element matching `selector` as a mouse does, once it is there.
    #[track_caller]
    pub fn click(&self, selector: &str) {
        self.on_element(selector, "click", |e| async move { e.click().await });
    }

    /// Types `text` into the element matching `selector` (it gets the focus).
    #[track_caller]
    pub fn type_into(&self, selector: &str, text: &str) {
        self.on_element(
            selector,
            "type into",
            |e| async move { e.send_keys(text).await },
        );
    }

    /// Clicks the element matching `selector` once it is there and enabled (a button the
    /// page disables while it is busy).
    #[track_caller]
    pub fn click_enabled(&self, selector: &str) {
        self.wait_until(
            &format!("`{selector}` to be enabled"),
            "const e = document.querySelector(arguments[0]); return e !== null && !e.disabled",
            &[selector.into()],
        );
        self.click(selector);
    }

    /// Empties the text field matching `selector` and types `text` into it.
    #[track_caller]
    pub fn replace_text(&self, selector: &str, text: &str) {
        self.on_element(selector, "replace the text of", |e| async move {
            e.clear().await?;
            e.send_keys(text).await
        });
    }

    /// Chooses the option of value `value` in the `<select>` matching `selector`, as a
    /// click on it does.
    #[track_caller]
    pub fn select(&self, selector: &str, value: &str) {
        self.on_element(selector, &format!("choose {value:?} in"), |e| async move {
            e.select_by_value(value).await
        });
    }

    /// Waits for the element matching `selector` and does `act` with it; a failure panics
    /// saying `what` was done, with the page's report.
    #[track_caller]
    fn on_element<Act, Done>(&self, selector: &str, what: &str, act: Act)
    where
        Act: FnOnce(Element) -> Done,
        Done: Future<Output = Result<(), CmdError>>,
    {
        self.wait_for(selector);
        let done = self.run(async {
            let element = self.client().find(Locator::Css(selector)).await?;
            act(element).await
        });
        if let Err(e) = done {
            panic!("{what} `{selector}`: {e}\n{}", self.report());
        }
    }

    /// Presses `key` while holding `modifiers`, in whatever has the focus (e.g.
    /// `press(&[Key::Alt], 'z')`, `press(&[], Key::Enter)`).
    #[track_caller]
    pub fn press(&self, modifiers: &[Key], key: impl Into<char>) {
        let key = key.into();
        let mut keys = KeyActions::new("keyboard".into());
        for modifier in modifiers {
            keys = keys.then(KeyAction::Down {
                value: (*modifier).into(),
            });
        }
        keys = keys
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Up { value: key });
        for modifier in modifiers.iter().rev() {
            keys = keys.then(KeyAction::Up {
                value: (*modifier).into(),
            });
        }
        self.run(self.client().perform_actions(keys))
            .unwrap_or_else(|e| panic!("press {key:?}: {e}\n{}", self.report()));
    }

    /// Types `text` a key at a time into whatever has the focus.
    #[track_caller]
    pub fn type_keys(&self, text: &str) {
        let mut keys = KeyActions::new("keyboard".into());
        for c in text.chars() {
            keys = keys
                .then(KeyAction::Down { value: c })
                .then(KeyAction::Up { value: c });
        }
        self.run(self.client().perform_actions(keys))
            .unwrap_or_else(|e| panic!("type {text:?}: {e}\n{}", self.report()));
    }

    /// A description of the element that has the focus (`TAG#id.class`).
    #[track_caller]
    pub fn focused(&self) -> String {
        let described = self.js(
            "const e = document.activeElement; if (!e) return ''; \
             return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + \
             [...e.classList].map(c => '.' + c).join('')",
            &[],
        );
        described.as_str().unwrap_or_default().to_string()
    }

    /// The page as a failure report: its address, its HTML (open dialogs first) and the
    /// console.
    pub fn report(&self) -> String {
        let html = self.run(self.client().execute(
            "const dialogs = [...document.querySelectorAll('dialog[open]')]; \
             return dialogs.map(d => d.outerHTML).join('\\n') + '\\n' + \
             (document.querySelector('#app') || document.documentElement).outerHTML",
            vec![],
        ));
        let html = html
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_else(|| "(no HTML: the page did not answer)".into());
        let url = self
            .run(self.client().current_url())
            .map(|u| u.to_string())
            .unwrap_or_default();
        format!(
            "--- page {url}\n{}\n--- console\n{}",
            shorten(&html, REPORT_HTML),
            self.console_report()
        )
    }
}

/// Whether a script's value counts as true, as JavaScript's `if` would have it.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// At most `limit` bytes of `text` (cut at a character boundary), saying how much is left.
fn shorten(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    let end = (0..=limit)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}
