//! Which API key a proxy request carries, and whether it is let through: by default only
//! the key omnid itself holds (so only those who hold it can use the endpoint); with
//! `proxy.accept_any_key`, whatever key the client brings. The key goes upstream in the
//! `x-goog-api-key` header, never in the URL, and never into a log.

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use subtle::ConstantTimeEq;

use super::errors;
use crate::provider::ApiKey;

/// The key a request carries: the `x-goog-api-key` header, else the `key` query parameter.
pub fn carried(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    if let Some(value) = headers.get("x-goog-api-key").and_then(|v| v.to_str().ok()) {
        return Some(value.trim().to_string());
    }
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(name, _)| *name == "key")
        .map(|(_, value)| value.to_string())
}

/// The query without its `key` parameter (the key travels in a header upstream).
pub fn without_key(query: Option<&str>) -> Option<String> {
    let kept: Vec<&str> = query?
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.starts_with("key="))
        .collect();
    (!kept.is_empty()).then(|| kept.join("&"))
}

/// Why a key was not let through: what the client is told.
#[derive(Debug)]
pub struct Refused(&'static str);

impl Refused {
    /// The API-shaped 401 the client gets.
    pub fn response(&self) -> Response {
        errors::response(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED", self.0)
    }
}

fn refused(message: &'static str) -> Refused {
    Refused(message)
}

/// The key to send upstream, or why it is refused.
pub fn admit(
    carried: Option<String>,
    configured: Option<&ApiKey>,
    accept_any: bool,
) -> Result<Option<ApiKey>, Refused> {
    if accept_any {
        return match carried {
            None => Ok(None),
            Some(key) => ApiKey::new(&key)
                .map(Some)
                .map_err(|_| refused("API key not valid: it cannot be sent in a header.")),
        };
    }
    let Some(configured) = configured else {
        return Err(refused(
            "omnid holds no API key, so its proxy accepts none; configure its key, or set \
             proxy.accept_any_key = true to forward the keys clients bring.",
        ));
    };
    match carried {
        Some(key) if bool::from(key.as_bytes().ct_eq(configured.expose().as_bytes())) => {
            Ok(Some(configured.clone()))
        }
        Some(_) => Err(refused(
            "API key not valid for this omnid proxy. Please pass the key omnid is configured \
             with.",
        )),
        None => Err(refused(
            "This omnid proxy needs an API key: pass the key omnid is configured with in the \
             x-goog-api-key header.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> ApiKey {
        ApiKey::new(text).expect("a valid key")
    }

    #[test]
    fn the_header_wins_over_the_query_and_the_key_leaves_the_query() {
        let mut headers = HeaderMap::new();
        assert_eq!(
            carried(&headers, Some("alt=sse&key=abc")),
            Some("abc".into())
        );
        headers.insert("x-goog-api-key", "hdr".parse().expect("a header value"));
        assert_eq!(carried(&headers, Some("key=abc")), Some("hdr".into()));
        assert_eq!(without_key(Some("alt=sse&key=abc")), Some("alt=sse".into()));
        assert_eq!(without_key(Some("key=abc")), None);
    }

    #[test]
    fn only_the_configured_key_passes_unless_any_key_is_accepted() {
        let mine = key("mine");
        assert!(admit(Some("mine".into()), Some(&mine), false).is_ok());
        assert!(admit(Some("theirs".into()), Some(&mine), false).is_err());
        assert!(admit(None, Some(&mine), false).is_err());
        assert!(admit(Some("mine".into()), None, false).is_err());
        let forwarded = admit(Some("theirs".into()), Some(&mine), true).expect("accepted");
        assert_eq!(
            forwarded.map(|k| k.expose().to_string()),
            Some("theirs".into())
        );
    }
}
