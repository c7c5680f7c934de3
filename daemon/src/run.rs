//! The daemon's life: start (store, provider, socket), serve, and shut down cleanly.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use anyhow::Context;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::diag::{Diagnostics, Redactor};
use crate::provider::Gemini;
use crate::resilience::Breaker;
use crate::server::{self, listener};
use crate::session::actor::SessionContext;
use crate::session::current::CurrentSession;
use crate::session::registry::Registry;
use crate::state::Daemon;
use crate::store::Store;

/// Runs the daemon until `shutdown` is cancelled, then stops accepting, lets in-flight work
/// finish or record itself as interrupted (within the grace period), flushes the store and
/// returns.
pub async fn run(mut config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    // Refuse early, before touching the store, if a live daemon owns the socket.
    listener::reclaim_stale(&config.socket)?;
    let store = Arc::new(Store::open(&config.data_dir)?);
    // Diagnostics never stop the daemon: an unusable log directory is reported (and every
    // failed write counted in `omnictl status`), but sessions go on.
    if let Err(error) = std::fs::create_dir_all(&config.log_dir) {
        tracing::error!(%error, dir = %config.log_dir.display(), "cannot create the log directory; diagnostics will not be written");
    }

    let _demo = start_demo(&mut config)?;
    let redactor = Redactor::new(config.provider.api_key.as_ref().map(|k| k.expose()));
    let diag = Arc::new(Diagnostics::new(
        &config.log_dir,
        redactor,
        config.redacted(),
        config.retention.clone(),
    ));
    if config.provider.api_key.is_none() && !config.demo {
        tracing::warn!(
            "GEMINI_API_KEY is not set: requests to {} will be sent without a key",
            config.provider.base_url
        );
    }
    let provider = Arc::new(Gemini::new(&config.provider).context("cannot build the HTTP client")?);

    let current = store
        .sessions()?
        .into_iter()
        .max_by_key(|record| (record.updated_at_ms, record.id))
        .map(|record| record.id);
    let tracker = TaskTracker::new();
    let sends_in_flight = Arc::new(AtomicU32::new(0));
    let ctx = Arc::new(SessionContext {
        store: store.clone(),
        provider: provider.clone(),
        model: config.provider.model.clone(),
        request_options: config.provider.request.clone(),
        retry: config.retry.clone(),
        breaker: Breaker::new(
            provider.url(),
            config.breaker_failures,
            config.breaker_cooldown,
        ),
        shutdown: shutdown.clone(),
        tracker: tracker.clone(),
        current: Arc::new(CurrentSession::new(current)),
        sends_in_flight: sends_in_flight.clone(),
        diag,
    });

    let socket = listener::bind(&config.socket)?;
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        socket = %config.socket.display(),
        store = %config.data_dir.display(),
        endpoint = provider.url(),
        "omnid is listening"
    );
    let daemon = Arc::new(Daemon {
        sessions: Registry::new(ctx),
        store: store.clone(),
        started: Instant::now(),
        connections: AtomicU32::new(0),
        sends_in_flight,
        config,
    });

    server::serve(socket, daemon.clone(), shutdown, tracker.clone()).await;

    let in_flight = daemon.sends_in_flight.load(Ordering::Relaxed);
    tracing::info!(in_flight, "no longer accepting connections; draining");
    tracker.close();
    let grace = daemon.config.shutdown_grace;
    if tokio::time::timeout(grace, tracker.wait()).await.is_err() {
        tracing::warn!(
            ?grace,
            "in-flight work did not finish within the grace period"
        );
    }
    store
        .sync()
        .await
        .context("final flush of the store failed")?;
    tracing::info!("stopped cleanly");
    Ok(())
}

#[cfg(feature = "demo")]
fn start_demo(config: &mut Config) -> anyhow::Result<Option<omni_tests::fake_gemini::FakeGemini>> {
    if !config.demo {
        return Ok(None);
    }
    let fake = omni_tests::fake_gemini::FakeGemini::start()?;
    fake.set_chunk_delay(std::time::Duration::from_millis(40));
    config.provider.base_url = fake.url();
    config.provider.model = "omni-demo".into();
    // A real key has no business going to the demo endpoint.
    config.provider.api_key = None;
    tracing::info!(endpoint = %fake.url(), "demo mode: answers come from the bundled fake Gemini endpoint");
    Ok(Some(fake))
}

#[cfg(not(feature = "demo"))]
fn start_demo(config: &mut Config) -> anyhow::Result<Option<()>> {
    anyhow::ensure!(
        !config.demo,
        "this omnid was built without the `demo` feature"
    );
    Ok(None)
}
