//! Who may use the web app: the one-time login links `omnictl web` asks for, and the
//! browser sessions they open. Held in memory only, so a restart logs every browser out
//! (`omnictl web` again logs one back in); nothing secret reaches the store or a log.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use omni_proto::{ErrorKind, ErrorReply};
use subtle::ConstantTimeEq;

/// How long a login link stays good unused.
pub const LINK_LIFETIME: Duration = Duration::from_secs(300);
/// Links not yet used that are kept at once; an older one is forgotten.
const OPEN_LINKS: usize = 16;
/// Browser sessions kept at once; the oldest is logged out when one more logs in.
const BROWSERS: usize = 64;

/// The web app's address and its keys.
#[derive(Default)]
pub struct WebKeys {
    address: OnceLock<SocketAddr>,
    keys: Mutex<Keys>,
}

#[derive(Default)]
struct Keys {
    /// Unused login links' secrets, with when each expires.
    links: VecDeque<(String, Instant)>,
    /// The cookies of logged-in browsers, newest last.
    browsers: VecDeque<String>,
}

impl WebKeys {
    /// Records where the web app listens (once, at start).
    pub fn serve_at(&self, address: SocketAddr) {
        let _ = self.address.set(address);
    }

    /// Where the web app listens, if it does.
    pub fn address(&self) -> Option<SocketAddr> {
        self.address.get().copied()
    }

    /// A new one-time login link, or why there is none (the web app is not served).
    pub fn link(&self) -> Result<String, ErrorReply> {
        let Some(address) = self.address() else {
            return Err(ErrorReply::new(
                ErrorKind::InvalidRequest,
                "omnid does not serve the web app: start it with --web-listen 127.0.0.1:PORT \
                 (or set web.listen in its configuration file)",
            ));
        };
        let secret = secret_hex()?;
        let mut keys = self.lock();
        let now = Instant::now();
        keys.links.retain(|(_, expires)| *expires > now);
        if keys.links.len() >= OPEN_LINKS {
            keys.links.pop_front();
        }
        keys.links.push_back((secret.clone(), now + LINK_LIFETIME));
        Ok(format!("http://{address}/login?key={secret}"))
    }

    /// Uses up the link whose secret is `key`: a new browser cookie if it was good and
    /// unexpired, else `None`. Every secret is compared in constant time.
    pub fn redeem(&self, key: &str) -> Option<String> {
        let mut keys = self.lock();
        let now = Instant::now();
        let found = keys.links.iter().fold(None, |found, (secret, expires)| {
            let equal = bool::from(secret.as_bytes().ct_eq(key.as_bytes()));
            found.or((equal && *expires > now).then(|| secret.clone()))
        })?;
        keys.links.retain(|(secret, _)| *secret != found);
        let cookie = secret_hex().ok()?;
        if keys.browsers.len() >= BROWSERS {
            keys.browsers.pop_front();
        }
        keys.browsers.push_back(cookie.clone());
        Some(cookie)
    }

    /// Whether `cookie` belongs to a logged-in browser.
    pub fn admits(&self, cookie: &str) -> bool {
        self.lock().browsers.iter().fold(false, |admitted, known| {
            admitted | bool::from(known.as_bytes().ct_eq(cookie.as_bytes()))
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Keys> {
        self.keys
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// 32 random bytes as 64 hex digits: a secret nobody can guess.
pub fn secret_hex() -> Result<String, ErrorReply> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| {
        ErrorReply::new(
            ErrorKind::Internal,
            format!("no randomness for a secret: {error}"),
        )
    })?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served() -> WebKeys {
        let keys = WebKeys::default();
        keys.serve_at("127.0.0.1:8080".parse().unwrap());
        keys
    }

    fn secret_of(link: &str) -> &str {
        link.rsplit_once("key=").unwrap().1
    }

    #[test]
    fn a_link_logs_one_browser_in_once() {
        let keys = served();
        let link = keys.link().unwrap();
        assert!(link.starts_with("http://127.0.0.1:8080/login?key="));
        let cookie = keys.redeem(secret_of(&link)).expect("a fresh link works");
        assert!(keys.admits(&cookie));
        assert_eq!(keys.redeem(secret_of(&link)), None, "a link works once");
        assert!(!keys.admits("0".repeat(64).as_str()));
        assert!(!keys.admits(""));
    }

    #[test]
    fn no_link_without_the_web_app_and_none_for_a_wrong_key() {
        let error = WebKeys::default().link().unwrap_err();
        assert!(error.message.contains("--web-listen"), "{}", error.message);
        let keys = served();
        let _ = keys.link().unwrap();
        assert_eq!(keys.redeem("wrong"), None);
        assert_eq!(keys.redeem(""), None);
    }

    #[test]
    fn the_oldest_browser_is_logged_out_past_the_cap() {
        let keys = served();
        let cookies: Vec<String> = (0..=BROWSERS)
            .map(|_| keys.redeem(secret_of(&keys.link().unwrap())).unwrap())
            .collect();
        assert!(!keys.admits(&cookies[0]));
        assert!(keys.admits(&cookies[BROWSERS]));
    }
}
