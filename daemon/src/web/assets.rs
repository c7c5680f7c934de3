//! The web app's files (`daemon/web/`), embedded in the binary when it is built: the page
//! works offline, needs nothing installed, and cannot be changed on disk by anyone.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

#[derive(rust_embed::Embed)]
#[folder = "web/"]
struct Files;

/// `GET /`: the page.
pub async fn index() -> Response {
    file("index.html")
}

/// `GET /assets/{*path}`: a script, style sheet or picture of the page.
pub async fn asset(Path(path): Path<String>) -> Response {
    file(&path)
}

fn file(path: &str) -> Response {
    let Some(found) = Files::get(path) else {
        return (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("the web app has no file {path}\n"),
        )
            .into_response();
    };
    let mime = found.metadata.mimetype();
    let media_type = match mime {
        "text/html" | "text/css" | "text/javascript" | "application/javascript" => {
            format!("{mime}; charset=utf-8")
        }
        other => other.to_string(),
    };
    let mut response = found.data.into_owned().into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&media_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    // Revalidated on every load, so a new omnid is never paired with an old script.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_embedded_and_typed() {
        let page = file("index.html");
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(
            page.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        assert_eq!(file("../Cargo.toml").status(), StatusCode::NOT_FOUND);
        assert_eq!(file("nothing.js").status(), StatusCode::NOT_FOUND);
    }
}
