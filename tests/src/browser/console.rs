//! The browser's console, read from Chromium's browser log (`goog:loggingPrefs`): what a
//! person would see in the developer tools, script errors and Content-Security-Policy
//! violations among it.

use fantoccini::wd::WebDriverCompatibleCommand;
use serde_json::Value;

use super::Browser;

/// One line of the browser's console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleEntry {
    /// `SEVERE`, `WARNING`, `INFO` or `DEBUG`.
    pub level: String,
    /// The message, with where it came from.
    pub message: String,
}

impl ConsoleEntry {
    /// Whether this is a Content-Security-Policy violation (never expected).
    pub fn is_csp_violation(&self) -> bool {
        self.message.contains("Content Security Policy")
    }
}

/// `POST /session/{id}/se/log {"type": "browser"}`: the log entries since the last read.
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/se/log",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (hyper::Method, Option<String>) {
        (hyper::Method::POST, Some(r#"{"type": "browser"}"#.into()))
    }
}

impl Browser {
    /// Every console entry since the browser started (the log is drained as it is read,
    /// so what was read is kept here).
    pub fn console(&self) -> Vec<ConsoleEntry> {
        let fresh = self.run(self.client().issue_cmd(BrowserLog));
        let mut kept = self.console.lock().unwrap_or_else(|p| p.into_inner());
        if let Ok(Value::Array(entries)) = fresh {
            kept.extend(entries.iter().map(|entry| ConsoleEntry {
                level: entry["level"].as_str().unwrap_or_default().to_string(),
                message: entry["message"].as_str().unwrap_or_default().to_string(),
            }));
        }
        kept.clone()
    }

    /// The console's errors (`SEVERE`) and every CSP violation whatever its level.
    pub fn console_errors(&self) -> Vec<ConsoleEntry> {
        self.console()
            .into_iter()
            .filter(|e| e.level == "SEVERE" || e.is_csp_violation())
            .collect()
    }

    /// Fails when the console holds an error other than those containing one of
    /// `expected` (e.g. `"409 (Conflict)"` for a refusal the test provokes), or any
    /// Content-Security-Policy violation at all.
    #[track_caller]
    pub fn assert_console_clean(&self, expected: &[&str]) {
        let unexpected: Vec<String> = self
            .console_errors()
            .into_iter()
            .filter(|e| e.is_csp_violation() || !expected.iter().any(|x| e.message.contains(x)))
            .map(|e| format!("{}: {}", e.level, e.message))
            .collect();
        assert!(
            unexpected.is_empty(),
            "the browser's console has errors:\n{}",
            unexpected.join("\n")
        );
    }

    /// The console as text, for failure reports.
    pub(super) fn console_report(&self) -> String {
        self.console()
            .iter()
            .map(|e| format!("{}: {}", e.level, e.message))
            .collect::<Vec<_>>()
            .join("\n")
    }
}
