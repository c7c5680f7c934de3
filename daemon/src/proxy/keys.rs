//! Whether the API key a proxy request carries is let through: by default only the key
//! omnid itself holds for that API's provider (so only those who hold it can use the
//! endpoint); with `proxy.accept_any_key`, whatever key the client brings. Where a key is
//! carried is each API's own (`gemini/keys.rs`, ...); upstream it travels in a header,
//! never in the URL, and never into a log.

use axum::http::StatusCode;
use axum::response::Response;
use subtle::ConstantTimeEq;

use super::api::{Api, error_response};
use crate::provider::ApiKey;

/// Why a key was not let through: what the client is told.
#[derive(Debug)]
pub struct Refused(String);

impl Refused {
    /// The 401 the client gets, in its API's shape.
    pub fn response(&self, api: &dyn Api) -> Response {
        error_response(api, StatusCode::UNAUTHORIZED, &self.0)
    }
}

fn refused(message: impl Into<String>) -> Refused {
    Refused(message.into())
}

/// The key to send upstream, or why it is refused; `where_to` says where a client of
/// this API passes its key ("the x-goog-api-key header").
pub fn admit(
    carried: Option<String>,
    configured: Option<&ApiKey>,
    accept_any: bool,
    where_to: &str,
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
        None => Err(refused(format!(
            "This omnid proxy needs an API key: pass the key omnid is configured with in \
             {where_to}."
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> ApiKey {
        ApiKey::new(text).expect("a valid key")
    }

    #[test]
    fn only_the_configured_key_passes_unless_any_key_is_accepted() {
        let mine = key("mine");
        assert!(admit(Some("mine".into()), Some(&mine), false, "h").is_ok());
        assert!(admit(Some("theirs".into()), Some(&mine), false, "h").is_err());
        assert!(admit(None, Some(&mine), false, "h").is_err());
        assert!(admit(Some("mine".into()), None, false, "h").is_err());
        let forwarded = admit(Some("theirs".into()), Some(&mine), true, "h").expect("accepted");
        assert_eq!(
            forwarded.map(|k| k.expose().to_string()),
            Some("theirs".into())
        );
    }
}
