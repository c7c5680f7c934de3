//! What `status` shows of the daemon, in the wire protocol's types.

use std::sync::atomic::Ordering;

use omni_proto::{
    DaemonStatus, DamagedSession, HealthState, PROTOCOL_VERSION, ProxyEndpointStatus, ProxyStatus,
    StoreHealth,
};

use crate::api::state::Daemon;
use crate::services::{ProxyCounters, ProxyCounts};

/// The daemon as `status` shows it: its versions, sockets, store, activity, breakers
/// and proxy, read from the shared services and counters.
pub async fn status(daemon: &Daemon) -> DaemonStatus {
    let services = &daemon.services;
    // The reload counts before the configuration they describe: a reload swaps the
    // configuration, then counts itself, so a status never counts a reload whose
    // configuration it does not show (a status that awaits the store meanwhile did).
    let counters = &services.counters;
    let config_reloads = counters.reloads.load(Ordering::Acquire);
    let config_reload_failures = counters.reload_failures.load(Ordering::Acquire);
    let live = services.live.get();
    let config = &live.config;
    let (store_kind, store_url) = services.store.kind();
    DaemonStatus {
        current_context: current_context(daemon, &live).await,
        version: env!("CARGO_PKG_VERSION").to_string(),
        protocol_version: PROTOCOL_VERSION,
        pid: std::process::id(),
        uptime_ms: daemon.services.counters.started.elapsed().as_millis() as u64,
        socket: config.socket.display().to_string(),
        api_socket: config.http.socket.display().to_string(),
        http_address: services
            .counters
            .http_address
            .get()
            .map(|address| address.to_string()),
        web_address: daemon.web.address().map(|address| address.to_string()),
        data_dir: config.data_dir.display().to_string(),
        store_kind: store_kind.to_string(),
        store_url: store_url.map(str::to_string),
        instance: config.instance_name.clone(),
        log_dir: config.log_dir.display().to_string(),
        store_bytes: daemon.services.store.size_on_disk().await,
        sessions: daemon.services.store.session_count().await as u64,
        sessions_loaded: daemon.sessions.loaded_count() as u64,
        store_commits: daemon.services.store.commits(),
        store_syncs: daemon.services.store.sync_runs(),
        connections: daemon.services.counters.connections.load(Ordering::Relaxed),
        sends_in_flight: daemon
            .services
            .counters
            .sends_in_flight
            .load(Ordering::Relaxed),
        model: live
            .default_endpoint()
            .map_or_else(|_| live.config.provider.model.clone(), |e| e.reference),
        base_url: live.config.provider.default.base_url.clone(),
        breakers: live
            .breaker_statuses()
            .into_iter()
            .map(Into::into)
            .collect(),
        log_write_failures: services.diag.write_failures(),
        config_file: config.file.as_ref().map(|p| p.display().to_string()),
        config_reloads,
        config_reload_failures,
        store_health: match daemon.services.store.health() {
            None => StoreHealth {
                state: HealthState::Ok,
                since_ms: None,
                reason: None,
            },
            Some(failing) => StoreHealth {
                state: HealthState::Failing,
                since_ms: Some(failing.since_ms),
                reason: Some(failing.reason),
            },
        },
        damaged_sessions: daemon
            .sessions
            .damaged()
            .all()
            .into_iter()
            .map(|(id, reason)| DamagedSession {
                id: id.to_string(),
                reason,
            })
            .collect(),
        proxy: proxy_status(&services.counters.proxy),
        usage_today: usage_today(daemon).await,
    }
}

/// Today's tokens and cost; none when the store cannot be read (status still answers).
async fn usage_today(daemon: &Daemon) -> omni_proto::UsageTotals {
    let services = &daemon.services;
    match services
        .usage_today
        .totals(&services.store, crate::time::now_ms())
        .await
    {
        Ok(totals) => super::usage::totals(&totals, &services.live.get().config.prices),
        Err(error) => {
            tracing::warn!(%error, "cannot read today's usage from the store");
            omni_proto::UsageTotals::default()
        }
    }
}

/// The proxy's address and counts, in all and per endpoint, if it listens.
fn proxy_status(proxy: &ProxyCounters) -> Option<ProxyStatus> {
    let address = proxy.address.get()?;
    let (requests, healed, failed) = counted(&proxy.all);
    let endpoints = proxy.endpoints.get().into_iter().flatten();
    Some(ProxyStatus {
        address: address.to_string(),
        requests,
        healed,
        failed,
        endpoints: endpoints
            .map(|(api, counts)| {
                let (requests, healed, failed) = counted(counts);
                ProxyEndpointStatus {
                    api: api.to_string(),
                    requests,
                    healed,
                    failed,
                }
            })
            .collect(),
    })
}

/// Requests, healed, failed.
fn counted(counts: &ProxyCounts) -> (u64, u64, u64) {
    (
        counts.requests.load(Ordering::Relaxed),
        counts.healed.load(Ordering::Relaxed),
        counts.failed.load(Ordering::Relaxed),
    )
}

/// How full the current session's context is, when there is a current session.
async fn current_context(
    daemon: &Daemon,
    live: &crate::services::Live,
) -> Option<omni_proto::ContextGauge> {
    let services = &daemon.services;
    let id = services.current.get()?;
    let record = services.store.session(&id).await.ok().flatten()?;
    let gauge = daemon.contexts.at_head(services, live, &record).await;
    Some(super::context::gauge(&gauge))
}
