//! The web app (`--web-listen`): the page and its files, the login link's landing, and the
//! HTTP API itself, the same router `--http-listen` serves, for a logged-in browser. The
//! page uses nothing but that API; this module only serves files, logs browsers in and
//! guards the origin.

mod assets;
mod guard;
mod login;

use std::sync::Arc;

use axum::Router;
use axum::middleware;
use axum::routing::get;
use tokio_util::sync::CancellationToken;

use crate::api::Daemon;
use crate::listeners::{self, Busy, Rules};

/// Serves the web app on `listener` until `shutdown`, at most `cap` connections at once.
pub fn serve(
    listener: tokio::net::TcpListener,
    daemon: Arc<Daemon>,
    cap: usize,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let address = listener.local_addr()?;
    daemon.web.serve_at(address);
    let tracker = daemon.services.tracker.clone();
    let head_timeout = {
        let services = daemon.services.clone();
        Arc::new(move || services.live.get().config.client_timeout)
    };
    let rules = Rules {
        name: "the web app",
        head_timeout,
        cap: Some((
            cap,
            Busy::new(
                "text/plain",
                "omnid is serving too many connections; reload shortly\n",
            ),
        )),
    };
    listeners::spawn(listener, router(daemon, address), rules, &tracker, shutdown);
    Ok(())
}

/// The page, its files, the login, and the API behind the browser's cookie, all behind
/// the origin's guard.
fn router(daemon: Arc<Daemon>, address: std::net::SocketAddr) -> Router {
    let api = crate::http::router(daemon.clone()).layer(middleware::from_fn_with_state(
        daemon.clone(),
        login::require_cookie,
    ));
    let hosts = Arc::new(guard::Hosts::of(address));
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{*path}", get(assets::asset))
        .route("/login", get(login::login))
        .with_state(daemon)
        .fallback_service(api)
        .layer(middleware::from_fn_with_state(hosts, guard::guard))
}
