//! SIGHUP: read the configuration again and apply what can change while running (how to
//! reach the model, the retry policy, the breaker, the log settings) without dropping a
//! connection or disturbing a send in flight. An invalid file is rejected with a clear log
//! line and the configuration in effect stays.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::api::Daemon;
use crate::config::{Args, Config, Env};
use crate::demo;
use crate::services::Live;

/// Reloads on every message until shutdown.
pub async fn serve(
    daemon: Arc<Daemon>,
    mut requests: mpsc::UnboundedReceiver<()>,
    shutdown: CancellationToken,
    args: Args,
    env: Env,
    demo_url: Option<String>,
) {
    loop {
        tokio::select! {
            request = requests.recv() => match request {
                Some(()) => reload(&daemon, &args, &env, demo_url.as_deref()),
                None => break,
            },
            _ = shutdown.cancelled() => break,
        }
    }
}

fn reload(daemon: &Daemon, args: &Args, env: &Env, demo_url: Option<&str>) {
    match apply(daemon, args, env, demo_url) {
        Ok(config) => {
            daemon
                .services
                .counters
                .reloads
                .fetch_add(1, Ordering::Release);
            tracing::info!(
                file = %config.file.as_ref().map_or("none".into(), |p| p.display().to_string()),
                model = %config.provider.model,
                retry_max_attempts = config.retry.max_attempts,
                "configuration reloaded"
            );
        }
        Err(error) => {
            daemon
                .services
                .counters
                .reload_failures
                .fetch_add(1, Ordering::Release);
            tracing::error!(
                "configuration reload failed, keeping the configuration in effect: {error:#}"
            );
        }
    }
}

fn apply(
    daemon: &Daemon,
    args: &Args,
    env: &Env,
    demo_url: Option<&str>,
) -> anyhow::Result<Config> {
    // Compared with the configuration in effect: the last one applied.
    let services = &daemon.services;
    let previous = services.live.get();
    let (mut config, kept) = Config::reload(args, env, &previous.config)?;
    if let Some(url) = demo_url {
        // In demo mode the demo model stays in charge whatever the file says.
        demo::point_at(&mut config, url);
    }
    for what in kept {
        tracing::warn!(
            "{what} changed in the configuration; that takes effect at the next restart"
        );
    }
    services
        .live
        .set(Live::build(config.clone(), Some(&previous))?);
    Ok(config)
}
