//! The daemon's life: start (store, provider, socket), serve, reload on SIGHUP, and shut
//! down cleanly.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Args, Config, Env};
use crate::diag::{Diagnostics, Policy};
use crate::live::{Live, LiveCell, Swap};
use crate::notify;
use crate::provider::Redactor;
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

/// The diagnostics policy a configuration implies.
pub fn diag_policy(config: &Config) -> Policy {
    Policy {
        redactor: Redactor::new(config.provider.api_key.as_ref().map(|k| k.expose())),
        config: config.redacted(),
        retention: config.retention.clone(),
    }
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

    let demo = start_demo(&mut config)?;
    let demo_url = demo_url(&demo);
    let diag = Arc::new(Diagnostics::new(&config.log_dir, diag_policy(&config)));
    if config.provider.api_key.is_none() && !config.demo {
        tracing::warn!(
            "no API key (GEMINI_API_KEY, api_key_file or the gemini_api_key credential): requests to {} \
             will be sent without one",
            config.provider.base_url
        );
    }
    let live = Live::build(&config, None)?;

    let tracker = TaskTracker::new();
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
        endpoint = ctx.live.get().provider.url(),
        config = %config.file.as_ref().map_or("none".into(), |p| p.display().to_string()),
        "omnid is listening"
    );
    let sessions = Registry::new(ctx);
    // Every session's record is checked against what is stored (a few lookups each); the
    // most recently used healthy one is the current session.
    if let Some(latest) = sessions.scan()? {
        sessions.context().current.set(latest);
    }
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

#[cfg(feature = "demo")]
type Demo = Option<omni_tests::fake_gemini::FakeGemini>;
#[cfg(not(feature = "demo"))]
type Demo = Option<()>;

#[cfg(feature = "demo")]
fn demo_url(demo: &Demo) -> Option<String> {
    demo.as_ref().map(|fake| fake.url())
}

#[cfg(not(feature = "demo"))]
fn demo_url(_: &Demo) -> Option<String> {
    None
}

#[cfg(feature = "demo")]
fn start_demo(config: &mut Config) -> anyhow::Result<Demo> {
    if !config.demo {
        return Ok(None);
    }
    let fake = omni_tests::fake_gemini::FakeGemini::start()?;
    fake.set_chunk_delay(std::time::Duration::from_millis(40));
    crate::reload::demo_overrides(config, Some(&fake.url()));
    tracing::info!(endpoint = %fake.url(), "demo mode: answers come from the bundled fake Gemini endpoint");
    Ok(Some(fake))
}

#[cfg(not(feature = "demo"))]
fn start_demo(config: &mut Config) -> anyhow::Result<Demo> {
    anyhow::ensure!(
        !config.demo,
        "this omnid was built without the `demo` feature"
    );
    Ok(None)
}
