//! The daemon's life: start (socket checks, store, services, sessions, socket), serve,
//! reload on SIGHUP, and shut down cleanly.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::api::Daemon;
use crate::api::throttle::Throttle;
use crate::config::{Args, Config, Env};
use crate::demo::{self, DemoModel};
use crate::diag::Diagnostics;
use crate::http;
use crate::listeners;
use crate::memory;
use crate::notify;
use crate::reload;
use crate::search::SearchIndex;
use crate::server::{self, listener};
use crate::services::{Counters, CurrentSession, Live, Services, Swap};
use crate::session::registry::Registry;
use crate::store::Store;

mod copy;
mod follow;
mod listen;

pub use copy::copy_store;
use listen::{listen, listen_http, listen_proxy, listen_web, tcp_cap};

/// What start-up needs beyond the configuration: the flags and environment it was resolved
/// from, so that a reload resolves the file again the same way.
pub struct Startup {
    /// The resolved configuration.
    pub config: Config,
    /// The command line.
    pub args: Args,
    /// The environment, as read at start.
    pub env: Env,
}

/// Runs the daemon until `shutdown` is cancelled, then stops accepting, lets in-flight work
/// finish or record itself as interrupted (within the grace period), flushes the store and
/// returns. A message on `reloads` reloads the configuration.
pub async fn run(
    startup: Startup,
    shutdown: CancellationToken,
    reloads: mpsc::UnboundedReceiver<()>,
) -> anyhow::Result<()> {
    let Startup {
        mut config,
        args,
        env,
    } = startup;
    // A socket handed over by systemd is used as is; otherwise refuse early, before
    // touching the store, if a live daemon owns ours.
    let inherited = listener::inherited()?;
    if inherited.control.is_none() {
        listener::reclaim_stale(&config.socket)?;
    }
    let open_files = listeners::raise_open_files();
    listeners::set_body_budget(config.request_body_budget);
    let tracker = TaskTracker::new();
    let demo_url = start_demo(&mut config, &tracker, &shutdown).await?;
    // Bound before the store opens, so a client that connects while a big store opens
    // waits for its answer instead of finding no daemon (`first_answer_ms_100k_sessions`).
    let socket = listen(&mut config, inherited.control)?;
    let (api, api_bound) = listen_http(&config, inherited.api).await?;
    let opened = open_sessions(config, &tracker, &shutdown, api.tcp_address());
    let (services, sessions) = match opened.await {
        Ok(opened) => opened,
        Err(error) => {
            if let Some(path) = api_bound {
                let _ = std::fs::remove_file(path);
            }
            return Err(error);
        }
    };
    let search = start_search(&services);
    let daemon_search = search.clone();
    let daemon = Arc::new(Daemon {
        services: services.clone(),
        sessions,
        search,
        warnings: Throttle::new(5, Duration::from_secs(10)),
        uploads: Default::default(),
        web: Default::default(),
        contexts: Default::default(),
    });
    let describe: notify::Describe = {
        let daemon = daemon.clone();
        Arc::new(move || {
            let daemon = daemon.clone();
            Box::pin(async move { daemon.one_line_status().await })
        })
    };
    crate::api::finish_unfinished_purges(&daemon).await;
    let told = describe().await;
    notify::ready(&told);
    check_in_background(&tracker, &daemon);
    follow::other_instances(&daemon);
    learn_default_window(&tracker, &services, shutdown.clone());
    crate::api::trash::spawn_expiry(&tracker, daemon.clone(), shutdown.clone());
    notify::spawn_watchdog(&tracker, shutdown.clone());
    memory::spawn_release(&tracker, shutdown.clone());
    notify::spawn_status(&tracker, shutdown.clone(), describe, told);
    let reloading = reload::serve(
        daemon.clone(),
        reloads,
        shutdown.clone(),
        args,
        env,
        demo_url,
    );
    tracker.spawn(reloading);

    let tcp_cap = tcp_cap(&services, open_files);
    http::serve(api, daemon.clone(), tcp_cap, shutdown.clone());
    listen_proxy(&daemon, tcp_cap).await?;
    listen_web(&daemon, tcp_cap, shutdown.clone()).await?;
    server::serve(socket, daemon, shutdown, tracker.clone()).await;
    if let Some(path) = api_bound {
        let _ = std::fs::remove_file(path);
    }
    drain(&services).await?;
    flush_search(daemon_search).await;
    Ok(())
}

/// Lets the search index commit what it was told of, so a clean stop leaves it caught up
/// (a crash leaves that to the next start), and end its indexer, which lets go of the
/// store: the store closes, writing what it acknowledged, once the daemon lets go too.
async fn flush_search(search: Option<Arc<SearchIndex>>) {
    if let Some(search) = search {
        let flushed = tokio::task::spawn_blocking(move || search.stop()).await;
        if let Ok(Err(error)) = flushed {
            tracing::warn!(%error, "the search index could not commit at shutdown; the next start catches up");
        }
    }
}

/// Checks every session's record against the store once the daemon serves, on a thread
/// of its own at the lowest priority (`can_wait.rs`): the check reads every record (about
/// 90 ms of CPU on a store of a million nodes), and at normal priority it shared the cores
/// with the first requests after a start. Sessions that disagree are reported as damaged
/// (`status`, `sessions`, the log). The tracker waits for it at shutdown.
fn check_in_background(tracker: &TaskTracker, daemon: &Arc<Daemon>) {
    let daemon = daemon.clone();
    let runtime = tokio::runtime::Handle::current();
    let (done, finished) = tokio::sync::oneshot::channel::<()>();
    let check = move || {
        crate::can_wait::lower_this_thread();
        if let Err(error) = runtime.block_on(daemon.sessions.check_all()) {
            tracing::error!(%error, "cannot check the sessions' records");
        }
        // Let go of the daemon (and its store) before saying so: at shutdown the store
        // closes, writing what it acknowledged, once nothing holds it.
        drop(daemon);
        drop(done);
    };
    match std::thread::Builder::new()
        .name("omni-check".into())
        .spawn(check)
    {
        Ok(_) => {
            tracker.spawn(async move {
                let _ = finished.await;
            });
        }
        Err(error) => tracing::error!(%error, "cannot start the check of the sessions' records"),
    }
}

/// Learns the default model's context window in the background (Gemini's API says it;
/// other families' come from the configuration or the known windows) and logs the one in
/// effect, so an unknown window shows in the log before the first send.
fn learn_default_window(
    tracker: &TaskTracker,
    services: &Arc<Services>,
    shutdown: CancellationToken,
) {
    let services = services.clone();
    tracker.spawn(async move {
        let live = services.live.get();
        let Ok(endpoint) = live.default_endpoint() else {
            return;
        };
        tokio::select! {
            () = services.windows.learn(&endpoint) => {}
            () = shutdown.cancelled() => return,
        }
        let (provider, model) = (&endpoint.provider, &endpoint.model);
        match services.windows.window(&live, provider, endpoint.kind, model) {
            Some(window) => tracing::info!(
                model = %endpoint.reference,
                tokens = window.tokens,
                source = window.source.as_str(),
                "the default model's context window"
            ),
            None => tracing::info!(
                model = %endpoint.reference,
                "the default model's context window is unknown; name it in the configuration's [windows] table"
            ),
        }
    });
}

/// Starts the search index's indexer, which opens the index (rebuilding it when it must be)
/// and follows the store; a daemon whose indexer cannot start serves without search.
fn start_search(services: &Services) -> Option<Arc<SearchIndex>> {
    let store = services.store.clone();
    match SearchIndex::start(store.dir(), store.clone()) {
        Ok(search) => Some(search),
        Err(error) => {
            tracing::error!(%error, "the search index cannot be started; search is unavailable until the next start");
            None
        }
    }
}

/// Opens the store and builds the shared services and the registry, with the current
/// session found: the start-up work that grows with the store.
async fn open_sessions(
    config: Config,
    tracker: &TaskTracker,
    shutdown: &CancellationToken,
    http_address: Option<std::net::SocketAddr>,
) -> anyhow::Result<(Arc<Services>, Registry)> {
    let services = build_services(config, tracker.clone(), shutdown.clone()).await?;
    if let Some(address) = http_address {
        let _ = services.counters.http_address.set(address);
    }
    let sessions = Registry::new(services.clone());
    // The most recently used healthy session is the current one, before a client is
    // answered; every other session is checked once the daemon serves (see
    // `check_in_background`).
    if let Some(latest) = sessions.current_at_start().await? {
        services.current.set(latest);
    }
    Ok((services, sessions))
}

/// What `omnid --print-config` prints: the configuration `config` would run with (with
/// `--demo`, the demo model's).
pub fn print_config(mut config: Config) -> anyhow::Result<String> {
    if config.demo {
        demo::describe(&mut config);
    }
    config.print()
}

/// With `--demo`, starts the demo model and points the configuration at it.
async fn start_demo(
    config: &mut Config,
    tracker: &TaskTracker,
    shutdown: &CancellationToken,
) -> anyhow::Result<Option<String>> {
    if !config.demo {
        return Ok(None);
    }
    let model = DemoModel::start(tracker, shutdown.clone()).await?;
    demo::point_at(config, &model.url());
    tracing::info!(endpoint = %model.url(), "demo mode: answers come from the demo model on 127.0.0.1");
    Ok(Some(model.url()))
}

/// Opens the store, makes the log directory private, and builds the shared services.
async fn build_services(
    config: Config,
    tracker: TaskTracker,
    shutdown: CancellationToken,
) -> anyhow::Result<Arc<Services>> {
    let opening = std::time::Instant::now();
    let store = Store::open_configured(&config.data_dir, config.store.clone()).await?;
    let store = Arc::new(store);
    // Most of a start with a big store is the store's open (sled loads its page table).
    tracing::info!(
        took_ms = opening.elapsed().as_millis() as u64,
        "the store is open"
    );
    // Diagnostics never stop the daemon: an unusable log directory is reported (and every
    // failed write counted in `omnictl status`), but sessions go on.
    let log_dir = crate::private::create_dir(&config.log_dir)
        .and_then(|()| crate::private::restrict_tree(&config.log_dir));
    if let Err(error) = log_dir {
        tracing::error!(%error, dir = %config.log_dir.display(), "cannot create the log directory (or make it private); diagnostics may not be written");
    }
    let diag = Diagnostics::new(&config.log_dir, &config.retention).shared_through(store.clone());
    let diag = Arc::new(diag);
    let default = &config.provider.default;
    let expected_key = default.kind.family().expected_key();
    if let Some(expected) = expected_key.filter(|_| default.api_key.is_none() && !config.demo) {
        tracing::warn!(
            "no API key ({expected}): requests to {} will be sent without one",
            default.base_url
        );
    }
    Ok(Arc::new(Services {
        store,
        diag,
        live: Swap::new(Live::build(config, None)?),
        shutdown,
        tracker,
        current: CurrentSession::new(None),
        counters: Counters::default(),
        usage_today: crate::usage::UsageToday::new(crate::time::now_ms()),
        windows: crate::services::ModelWindows::new(),
    }))
}

/// After the server stopped accepting: lets in-flight work finish or record itself as
/// interrupted (within the grace period), then flushes the store.
async fn drain(services: &Services) -> anyhow::Result<()> {
    notify::stopping();
    let in_flight = services.counters.sends_in_flight.load(Ordering::Relaxed);
    tracing::info!(in_flight, "no longer accepting connections; draining");
    services.tracker.close();
    let grace = services.live.get().config.shutdown_grace;
    if tokio::time::timeout(grace, services.tracker.wait())
        .await
        .is_err()
    {
        tracing::warn!(
            ?grace,
            "in-flight work did not finish within the grace period"
        );
    }
    services.store.sync().await?;
    services.store.mark_closed_cleanly();
    tracing::info!("stopped cleanly");
    Ok(())
}
