//! Which configured provider a request of an API goes to, and the headers a key travels
//! in: shared by the API modules whose clients name a model in the body (OpenAI's,
//! Anthropic's).

use axum::http::HeaderMap;

use crate::provider::{ApiKey, Provider, ProviderConfig};

/// The provider of `kind` a model goes to, and the model's name there: `NAME/MODEL`
/// names a provider of that kind (the prefix is not sent on), otherwise the first
/// provider of that kind, the default provider first.
pub fn provider_for<'a>(
    providers: &'a ProviderConfig,
    kind: &str,
    model: &'a str,
) -> Option<(&'a Provider, &'a str)> {
    let of_kind = |p: &&Provider| p.kind.as_str() == kind;
    if let Some((name, rest)) = model.split_once('/')
        && let Some(provider) = providers.all().filter(of_kind).find(|p| p.name == name)
    {
        return Some((provider, rest));
    }
    providers
        .all()
        .find(of_kind)
        .map(|provider| (provider, model))
}

/// The key a request carries as `Authorization: Bearer KEY`.
pub fn bearer_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|key| key.trim().to_string())
}

/// Headers for upstream holding the admitted key, if any, as `name` (the value marked
/// sensitive, so no debug print shows it).
pub fn key_headers(
    name: reqwest::header::HeaderName,
    value: Option<&ApiKey>,
    bearer: bool,
) -> reqwest::header::HeaderMap {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(key) = value {
        let value = if bearer { key.bearer() } else { key.header() };
        headers.insert(name, value.clone());
    }
    headers
}
