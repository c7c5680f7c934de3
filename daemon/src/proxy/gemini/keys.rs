//! Where a Gemini client carries its key: the `x-goog-api-key` header, else the `key`
//! query parameter (which never goes upstream: the key travels in the header).

use axum::http::HeaderMap;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
