//! The bearer token that guards the HTTP API on TCP (a Unix socket is guarded by its
//! file mode). The token lives in a file only its owner can read, made at first start.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};
use axum::Router;
use axum::extract::Request;
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use omni_proto::{ErrorKind, ErrorReply};
use subtle::ConstantTimeEq;

use super::respond::error_response;

/// The token in `path`, made (32 random bytes, hex, mode 0600) if the file is missing. A
/// file others can read is refused: the token would not be a secret.
pub fn token(path: &Path) -> anyhow::Result<String> {
    match std::fs::metadata(path) {
        Ok(metadata) => {
            let mode = metadata.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                bail!(
                    "the HTTP token file {} has mode {mode:o}: others may read it; make it \
                     private (chmod 600) or remove it to have a new one made",
                    path.display()
                );
            }
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the HTTP token file {}", path.display()))?;
            let token = text.trim().to_string();
            if token.is_empty() {
                bail!("the HTTP token file {} is empty", path.display());
            }
            Ok(token)
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => create(path),
        Err(error) => Err(error)
            .with_context(|| format!("cannot read the HTTP token file {}", path.display())),
    }
}

fn create(path: &Path) -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| anyhow::anyhow!("no randomness for the HTTP token: {e}"))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut file| {
            file.write_all(format!("{token}\n").as_bytes())
                .map(|()| file)
        })
        .with_context(|| format!("cannot create the HTTP token file {}", path.display()))?;
    file.flush()?;
    tracing::info!(file = %path.display(), "made a new HTTP API token");
    Ok(token)
}

/// `router`, answering 401 to any request without `Authorization: Bearer <token>`.
pub fn require_token(router: Router, token: String) -> Router {
    let token: Arc<str> = token.into();
    router.layer(middleware::from_fn(move |request: Request, next: Next| {
        let token = token.clone();
        async move { check(&token, request, next).await }
    }))
}

async fn check(token: &str, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(crate::provider::bearer_token)
        .unwrap_or_default();
    if bool::from(presented.as_bytes().ct_eq(token.as_bytes())) {
        return next.run(request).await;
    }
    let why = if presented.is_empty() {
        "this endpoint needs `Authorization: Bearer TOKEN`; the token is in omnid's \
         api.token file (see --http-token-file)"
    } else {
        "the bearer token is wrong; it is in omnid's api.token file (see --http-token-file)"
    };
    let mut response = error_response(&ErrorReply::new(ErrorKind::InvalidRequest, why));
    *response.status_mut() = axum::http::StatusCode::UNAUTHORIZED;
    let challenge = axum::http::HeaderValue::from_static("Bearer");
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge);
    response.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_token_file_is_made_private_and_then_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api.token");
        let made = token(&path).unwrap();
        assert_eq!(made.len(), 64);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(
            token(&path).unwrap(),
            made,
            "the same token at the next start"
        );
    }

    #[test]
    fn a_token_file_others_can_read_or_an_empty_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api.token");
        std::fs::write(&path, "secret\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = token(&path).unwrap_err().to_string();
        assert!(error.contains("others may read it"), "{error}");
        std::fs::write(&path, "  \n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(token(&path).unwrap_err().to_string().contains("is empty"));
    }
}
