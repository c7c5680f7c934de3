//! Binding what omnid listens on: the control socket (or systemd's), the HTTP API's
//! socket and TCP port, the proxy's and the web app's ports, each TCP listener capped to
//! fit the open-files limit.

use std::sync::Arc;

use anyhow::Context;
use interprocess::local_socket::tokio::Listener;
use tokio_util::sync::CancellationToken;

use crate::api::Daemon;
use crate::config::Config;
use crate::http;
use crate::listeners;
use crate::proxy;
use crate::server::listener;
use crate::services::Services;
use crate::web;

/// The socket systemd handed over, or ours, bound now; `config` is pointed at the one in
/// use (with the API's socket and token beside it).
pub(super) fn listen(
    config: &mut Config,
    inherited: Option<(Listener, Option<std::path::PathBuf>)>,
) -> anyhow::Result<Listener> {
    let (socket, path) = match inherited {
        Some((socket, path)) => {
            let path = path.unwrap_or_else(|| config.socket.clone());
            tracing::info!(socket = %path.display(), "using the socket systemd handed over");
            (socket, path)
        }
        None => (listener::bind(&config.socket)?, config.socket.clone()),
    };
    if path != config.socket {
        // Status shows the socket in use; the API's socket and token go beside it.
        config.http.socket = path.with_file_name("api.sock");
        if config.settings.http_token_file.is_none() {
            config.http.token_file = path.with_file_name("api.token");
        }
        config.socket = path.clone();
    }
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        socket = %path.display(),
        store = %config.data_dir.display(),
        model = %config.provider.model,
        endpoint = %config.provider.default.base_url,
        config = %config.file.as_ref().map_or("none".into(), |p| p.display().to_string()),
        "omnid is listening"
    );
    Ok(socket)
}

/// Each TCP listener's connection cap: the setting, lowered to fit the open-files limit.
pub(super) fn tcp_cap(services: &Services, open_files: u64) -> usize {
    let config = &services.live.get().config;
    let cap = listeners::tcp_cap(
        open_files,
        config.max_connections,
        config.tcp_max_connections,
    );
    tracing::info!(
        open_files,
        tcp_max_connections = cap,
        "the limit on open files, and the connections each TCP listener serves at once"
    );
    cap
}

/// With `--proxy-listen`, serves the model APIs' proxy on that loopback address.
pub(super) async fn listen_proxy(daemon: &Arc<Daemon>, cap: usize) -> anyhow::Result<()> {
    let Some(addr) = daemon.services.live.get().config.proxy_listen else {
        return Ok(());
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} (--proxy-listen)"))?;
    tracing::info!(address = %listener.local_addr()?, "the model APIs' proxy listens (Gemini, OpenAI, Anthropic)");
    proxy::serve(listener, proxy::Proxy::new(daemon.clone())?, cap);
    Ok(())
}

/// With `--web-listen`, serves the web app on that loopback address.
pub(super) async fn listen_web(
    daemon: &Arc<Daemon>,
    cap: usize,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let Some(addr) = daemon.services.live.get().config.web_listen else {
        return Ok(());
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} (--web-listen)"))?;
    tracing::info!(address = %listener.local_addr()?, "the web app listens (`omnictl web` prints a login link)");
    web::serve(listener, daemon.clone(), cap, shutdown)
}

/// The HTTP API's listeners: `api.sock` (handed over by systemd, or bound now: then its
/// path is returned, to be removed at exit) and, with `--http-listen`, loopback TCP.
pub(super) async fn listen_http(
    config: &Config,
    inherited: Option<std::os::unix::net::UnixListener>,
) -> anyhow::Result<(http::Listeners, Option<std::path::PathBuf>)> {
    let config = &config.http;
    let (unix, bound) = match inherited {
        Some(socket) => {
            tracing::info!("using the API socket systemd handed over");
            socket.set_nonblocking(true)?;
            (tokio::net::UnixListener::from_std(socket)?, None)
        }
        None => (
            listener::bind_api(&config.socket)?,
            Some(config.socket.clone()),
        ),
    };
    let tcp = match config.listen {
        Some(addr) => {
            let token = http::token(&config.token_file)?;
            let tcp = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("cannot listen on {addr} (--http-listen)"))?;
            tracing::info!(address = %tcp.local_addr()?, "the HTTP API listens on TCP (bearer token required)");
            Some((tcp, token))
        }
        None => None,
    };
    tracing::info!(socket = %config.socket.display(), "the HTTP API listens");
    Ok((http::Listeners { unix, tcp }, bound))
}
