//! The web app's login: the one-time link `omnictl web` prints sets a browser cookie, and
//! the API answers only requests that carry a cookie it handed out.

use std::sync::Arc;

use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use omni_proto::{ErrorKind, ErrorReply, json};
use serde::Deserialize;

use crate::api::Daemon;

/// The cookie that says a browser logged in.
pub const COOKIE: &str = "omni_web";

/// The login link's query.
#[derive(Deserialize)]
pub struct LinkQuery {
    key: Option<String>,
}

/// `GET /login?key=SECRET`: a good, unused key sets the cookie (HttpOnly, SameSite=Strict)
/// and sends the browser on to the page, at a URL without the secret.
pub async fn login(State(daemon): State<Arc<Daemon>>, Query(query): Query<LinkQuery>) -> Response {
    let cookie = query.key.as_deref().and_then(|key| daemon.web.redeem(key));
    let Some(cookie) = cookie else {
        tracing::info!("a browser opened a web login link that was used, expired or wrong");
        return (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "This login link was used already, has expired, or is wrong.\n\
             Run `omnictl web` for a new one.\n",
        )
            .into_response();
    };
    tracing::info!("a browser logged into the web app");
    let set = format!("{COOKIE}={cookie}; HttpOnly; SameSite=Strict; Path=/");
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
    if let Ok(value) = HeaderValue::from_str(&set) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// Lets a request on to the API only if it carries a logged-in browser's cookie.
pub async fn require_cookie(
    State(daemon): State<Arc<Daemon>>,
    request: Request,
    next: Next,
) -> Response {
    match cookie(request.headers()) {
        Some(value) if daemon.web.admits(value) => next.run(request).await,
        _ => {
            let error = ErrorReply::new(
                ErrorKind::InvalidRequest,
                "this browser is not logged in (or omnid restarted): run `omnictl web` and \
                 open the link it prints",
            );
            let body = json::error(&error).to_string();
            (
                StatusCode::UNAUTHORIZED,
                [(header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response()
        }
    }
}

/// The value of our cookie in the request's `Cookie` headers.
fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find_map(|(name, value)| (name == COOKIE).then_some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; omni_web=abc"),
        );
        assert_eq!(cookie(&headers), Some("abc"));
        let mut other = HeaderMap::new();
        other.append(header::COOKIE, HeaderValue::from_static("omni_webx=1"));
        assert_eq!(cookie(&other), None);
    }
}
