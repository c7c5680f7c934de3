//! Keeping secrets out of everything Omni writes or says: the configured API key's value
//! anywhere in text, `key=` parameters in URLs, and the values of credential headers.

pub use super::secrets::REDACTED;

/// Headers whose values are always secret.
const SECRET_HEADERS: &[&str] = &[
    "x-goog-api-key",
    "x-api-key",
    "authorization",
    "proxy-authorization",
];

/// Removes secrets from text before it is written anywhere.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    keys: Vec<String>,
}

impl Redactor {
    /// A redactor that also knows the configured key's value.
    pub fn new(key: Option<&str>) -> Self {
        Self::of_all(key)
    }

    /// A redactor that knows every configured key (each provider may have its own).
    /// Every key is also learned process-wide (see `secrets.rs`), so every redactor and
    /// every log line redacts it from then on.
    pub fn of_all<'a>(keys: impl IntoIterator<Item = &'a str>) -> Self {
        let keys: Vec<String> = keys
            .into_iter()
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .collect();
        for key in &keys {
            super::secrets::learn(key);
        }
        Self { keys }
    }

    /// The text with every key's value (this redactor's and every one learned), and every
    /// `key=` URL parameter value, replaced.
    pub fn text(&self, text: &str) -> String {
        let mut out = super::secrets::redact(text).into_owned();
        for key in &self.keys {
            out = out.replace(key.as_str(), REDACTED);
        }
        redact_key_params(&out)
    }

    /// A header value as it may be shown: secret headers are redacted entirely.
    pub fn header(&self, name: &str, value: &str) -> String {
        if SECRET_HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h)) {
            REDACTED.to_string()
        } else {
            self.text(value)
        }
    }
}

/// Replaces the value of every `key=` query parameter (`?key=...` or `&key=...`).
fn redact_key_params(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_key_param(rest) {
        let value_start = at + "key=".len();
        out.push_str(&rest[..value_start]);
        let tail = &rest[value_start..];
        let value_len = tail
            .find(|c: char| c == '&' || c == '#' || c == '"' || c == '\'' || c.is_whitespace())
            .unwrap_or(tail.len());
        if value_len > 0 {
            out.push_str(REDACTED);
        }
        rest = &tail[value_len..];
    }
    out.push_str(rest);
    out
}

/// The position of the next `key=` that starts a query parameter.
fn find_key_param(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find("key=") {
        let at = from + found;
        if at > 0 && matches!(text.as_bytes()[at - 1], b'?' | b'&') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_key_is_redacted_anywhere() {
        let r = Redactor::new(Some("AIzaSECRET"));
        assert_eq!(
            r.text("error near AIzaSECRET here"),
            "error near [REDACTED] here"
        );
    }

    #[test]
    fn key_parameters_in_urls_are_redacted() {
        let r = Redactor::default();
        assert_eq!(
            r.text("GET https://h/v1?alt=sse&key=abc123&x=1 failed"),
            "GET https://h/v1?alt=sse&key=[REDACTED]&x=1 failed"
        );
        assert_eq!(
            r.text("https://h/v1?key=abc"),
            "https://h/v1?key=[REDACTED]"
        );
        assert_eq!(
            r.text("monkey=banana"),
            "monkey=banana",
            "only query parameters"
        );
    }

    #[test]
    fn credential_headers_are_redacted_whatever_their_value() {
        let r = Redactor::default();
        assert_eq!(r.header("X-Goog-Api-Key", "anything"), REDACTED);
        assert_eq!(r.header("authorization", "Bearer x"), REDACTED);
        assert_eq!(r.header("X-Api-Key", "sk-ant-anything"), REDACTED);
        assert_eq!(
            r.header("content-type", "application/json"),
            "application/json"
        );
    }
}
