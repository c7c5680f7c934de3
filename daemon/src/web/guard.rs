//! What every answer of the web app's origin is held to: the request must name our own
//! host (a page of another site reaching us through DNS rebinding names its own), anything
//! that changes state must come from our own origin (a cross-site form or fetch carries
//! its own), and every answer forbids inline script, framing and caching of API answers.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The page's Content-Security-Policy: its own scripts and styles only, nothing inline,
/// no framing, no plugins.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; \
     base-uri 'none'; form-action 'self'; object-src 'none'";

/// The hosts the web app answers to: its address as bound, and `localhost` at its port.
#[derive(Debug, Clone)]
pub struct Hosts {
    names: Vec<String>,
}

impl Hosts {
    /// The names a browser may use for `address`.
    pub fn of(address: std::net::SocketAddr) -> Self {
        let port = address.port();
        let mut names = vec![address.to_string(), format!("localhost:{port}")];
        if address.ip().is_unspecified() {
            names.push(format!("127.0.0.1:{port}"));
        }
        Self { names }
    }

    fn host_ok(&self, host: &str) -> bool {
        self.names
            .iter()
            .any(|name| name.eq_ignore_ascii_case(host))
    }

    fn origin_ok(&self, origin: &str) -> bool {
        origin
            .strip_prefix("http://")
            .is_some_and(|host| self.host_ok(host))
    }
}

/// Refuses a foreign `Host`, and a state change without our own `Origin`; adds the
/// security headers to whatever is answered.
pub async fn guard(State(hosts): State<Arc<Hosts>>, request: Request, next: Next) -> Response {
    let is_api = request.uri().path().starts_with("/v1/") || request.uri().path() == "/login";
    let refusal = refusal(&hosts, request.method(), request.headers());
    let mut response = match refusal {
        Some(why) => {
            tracing::info!(why, "the web app refused a request");
            (
                StatusCode::FORBIDDEN,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!("{why}\n"),
            )
                .into_response()
        }
        None => next.run(request).await,
    };
    let headers = response.headers_mut();
    let fixed = [
        ("content-security-policy", CONTENT_SECURITY_POLICY),
        ("x-frame-options", "DENY"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("cross-origin-opener-policy", "same-origin"),
        ("cross-origin-resource-policy", "same-origin"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    if is_api || !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// Why the request is refused, if it is.
fn refusal(hosts: &Hosts, method: &Method, headers: &HeaderMap) -> Option<&'static str> {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if !text(header::HOST).is_some_and(|host| hosts.host_ok(host)) {
        return Some(
            "the web app answers only to its own address (127.0.0.1 or localhost at its \
             port): this request names another host",
        );
    }
    let changes_state = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if changes_state && !text(header::ORIGIN).is_some_and(|origin| hosts.origin_ok(origin)) {
        return Some("a request that changes something must come from the web app's own page");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    axum::http::HeaderName::from_static(name),
                    HeaderValue::from_static(value),
                )
            })
            .collect()
    }

    #[test]
    fn only_our_host_and_origin_pass() {
        let hosts = Hosts::of("127.0.0.1:8080".parse().unwrap());
        let ours = headers(&[("host", "127.0.0.1:8080")]);
        assert_eq!(refusal(&hosts, &Method::GET, &ours), None);
        let local = headers(&[
            ("host", "localhost:8080"),
            ("origin", "http://localhost:8080"),
        ]);
        assert_eq!(refusal(&hosts, &Method::POST, &local), None);
        for foreign in [
            headers(&[("host", "evil.example:8080")]),
            headers(&[("host", "127.0.0.1:8081")]),
            headers(&[]),
        ] {
            assert!(refusal(&hosts, &Method::GET, &foreign).is_some());
        }
        for origin in ["http://evil.example", "null", "https://127.0.0.1:8080"] {
            let cross = headers(&[("host", "127.0.0.1:8080"), ("origin", origin)]);
            assert!(refusal(&hosts, &Method::POST, &cross).is_some(), "{origin}");
        }
        assert!(refusal(&hosts, &Method::PUT, &ours).is_some(), "no Origin");
    }
}
