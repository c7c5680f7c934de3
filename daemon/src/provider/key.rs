//! An API key, kept so that it cannot leak by accident: its `Debug` hides it, and its
//! header values are marked sensitive.

use std::fmt;

use reqwest::header::HeaderValue;

/// An API key. Its `Debug` never shows the value, so it cannot leak into a log by accident,
/// and its header value is marked sensitive so HTTP tooling will not print it either.
#[derive(Clone)]
pub struct ApiKey {
    text: String,
    header: HeaderValue,
    bearer: HeaderValue,
}

/// A key that cannot be sent (blank, or characters a header cannot carry).
#[derive(Debug, thiserror::Error)]
#[error("the API key is empty or contains characters an HTTP header cannot carry")]
pub struct InvalidApiKey;

impl ApiKey {
    /// Validates and wraps a key (surrounding whitespace, such as a file's newline, is
    /// dropped).
    pub fn new(key: &str) -> Result<Self, InvalidApiKey> {
        let text = key.trim();
        if text.is_empty() {
            return Err(InvalidApiKey);
        }
        let sensitive = |value: String| {
            let mut value = HeaderValue::from_str(&value).map_err(|_| InvalidApiKey)?;
            value.set_sensitive(true);
            Ok::<_, InvalidApiKey>(value)
        };
        let header = sensitive(text.to_string())?;
        let bearer = sensitive(format!("Bearer {text}"))?;
        Ok(Self {
            text: text.to_string(),
            header,
            bearer,
        })
    }

    /// The key itself, for redacting it from text.
    pub fn expose(&self) -> &str {
        &self.text
    }

    /// The `x-goog-api-key` header value.
    pub fn header(&self) -> &HeaderValue {
        &self.header
    }

    /// The `Authorization: Bearer` header value (OpenAI-compatible servers).
    pub fn bearer(&self) -> &HeaderValue {
        &self.bearer
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// The token of an `Authorization` header's value in the `Bearer` scheme, whose name is
/// case-insensitive (RFC 9110: `bearer`, `BEARER` and `Bearer` alike), surrounding spaces
/// dropped; `None` for another scheme or no token.
pub fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim_start().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod bearer_tests {
    use super::bearer_token;

    #[test]
    fn the_scheme_is_case_insensitive_and_the_token_trimmed() {
        for value in ["Bearer t0k", "bearer t0k", "BEARER  t0k ", " Bearer t0k"] {
            assert_eq!(bearer_token(value), Some("t0k"), "{value:?}");
        }
        for value in ["Basic t0k", "Bearer", "Bearer   ", "Bearert0k", ""] {
            assert_eq!(bearer_token(value), None, "{value:?}");
        }
    }
}
