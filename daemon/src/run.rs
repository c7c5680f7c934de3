//! The daemon's life: start (store, provider, socket), serve, reload on SIGHUP, and shut
//! down cleanly.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Args, Config, Env};
use crate::demo::{self, DemoModel};
use crate::diag::Diagnostics;
use crate::live::{Live, LiveCell, Swap};
use crate::notify;
use crate::reload;
use crate::server::frames::Budget;
use crate::server::throttle::Throttle;
use crate::server::{self, listener};
use crate::session::actor::SessionContext;
use crate::session::current::CurrentSession;
use crate::session::registry::Registry;
use crate::state::Daemon;
use crate::store::Store;

/// Memory all connections together may hold in partly received frames: four frames of
/// the largest size.
const FRAME_BUDGET: usize = 4 * omni_proto::MAX_FRAME_LEN;

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
    if inherited.is_none() {
        listener::reclaim_stale(&config.socket)?;
    }
    let store = Arc::new(Store::open_with(&config.data_dir, config.store.clone())?);
    // Diagnostics never stop the daemon: an unusable log directory is reported (and every
    // failed write counted in `omnictl status`), but sessions go on.
    let log_dir = crate::private::create_dir(&config.log_dir)
        .and_then(|()| crate::private::restrict_tree(&config.log_dir));
    if let Err(error) = log_dir {
        tracing::error!(%error, dir = %config.log_dir.display(), "cannot create the log directory (or make it private); diagnostics may not be written");
    }

    let tracker = TaskTracker::new();
    let demo_url = match config.demo {
        true => {
            let model = DemoModel::start(&tracker, shutdown.clone()).await?;
            demo::point_at(&mut config, &model.url());
            tracing::info!(endpoint = %model.url(), "demo mode: answers come from the demo model on 127.0.0.1");
            Some(model.url())
        }
        false => None,
    };
    let diag = Arc::new(Diagnostics::new(&config.log_dir, config.diag_policy()));
    if config.provider.api_key.is_none() && !config.demo {
        tracing::warn!(
            "no API key (GEMINI_API_KEY, api_key_file or the gemini_api_key credential): requests to {} \
             will be sent without one",
            config.provider.base_url
        );
    }
    let live = Live::build(&config, None)?;

    let sends_in_flight = Arc::new(AtomicU32::new(0));
    let ctx = Arc::new(SessionContext {
        store: store.clone(),
        live: LiveCell::new(live),
        shutdown: shutdown.clone(),
        tracker: tracker.clone(),
        current: Arc::new(CurrentSession::new(None)),
        sends_in_flight: sends_in_flight.clone(),
        diag,
    });

    let sessions = Registry::new(ctx);
    // Every session's record is checked against what is stored (a few lookups each); the
    // most recently used healthy one is the current session.
    if let Some(latest) = sessions.scan()? {
        sessions.context().current.set(latest);
    }

    let socket = match inherited {
        Some((socket, path)) => {
            if let Some(path) = path {
                config.socket = path;
            }
            tracing::info!(socket = %config.socket.display(), "using the socket systemd handed over");
            socket
        }
        None => listener::bind(&config.socket)?,
    };
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        socket = %config.socket.display(),
        store = %config.data_dir.display(),
        endpoint = sessions.context().live.get().provider.url(),
        config = %config.file.as_ref().map_or("none".into(), |p| p.display().to_string()),
        "omnid is listening"
    );
    let daemon = Arc::new(Daemon {
        sessions,
        store: store.clone(),
        started: Instant::now(),
        connections: AtomicU32::new(0),
        sends_in_flight,
        reloads: AtomicU64::new(0),
        reload_failures: AtomicU64::new(0),
        frame_budget: Budget::new(FRAME_BUDGET),
        warnings: Throttle::new(5, Duration::from_secs(10)),
        config: Swap::new(config),
    });

    let describe = {
        let daemon = daemon.clone();
        Arc::new(move || daemon.one_line_status())
    };
    notify::ready(&describe());
    notify::spawn_watchdog(&tracker, shutdown.clone());
    notify::spawn_status(&tracker, shutdown.clone(), describe);
    tracker.spawn(reload::serve(
        daemon.clone(),
        reloads,
        shutdown.clone(),
        args,
        env,
        demo_url,
    ));

    server::serve(socket, daemon.clone(), shutdown, tracker.clone()).await;

    notify::stopping();
    let in_flight = daemon.sends_in_flight.load(Ordering::Relaxed);
    tracing::info!(in_flight, "no longer accepting connections; draining");
    tracker.close();
    let grace = daemon.config.get().shutdown_grace;
    if tokio::time::timeout(grace, tracker.wait()).await.is_err() {
        tracing::warn!(
            ?grace,
            "in-flight work did not finish within the grace period"
        );
    }
    store.sync().await?;
    tracing::info!("stopped cleanly");
    Ok(())
}
