//! `Status`: version, uptime, socket, store and activity.

use std::sync::atomic::Ordering;

use omni_proto::{
    DaemonStatus, DamagedSession, ErrorReply, HealthState, PROTOCOL_VERSION, Reply, StoreHealth,
};

use crate::state::Daemon;

pub fn handle(daemon: &Daemon) -> Result<Reply, ErrorReply> {
    let config = daemon.config.get();
    let ctx = daemon.sessions.context();
    let live = ctx.live.get();
    Ok(Reply::Status(Box::new(DaemonStatus {
        version: env!("CARGO_PKG_VERSION").to_string(),
        protocol_version: PROTOCOL_VERSION,
        pid: std::process::id(),
        uptime_ms: daemon.started.elapsed().as_millis() as u64,
        socket: config.socket.display().to_string(),
        data_dir: config.data_dir.display().to_string(),
        log_dir: config.log_dir.display().to_string(),
        store_bytes: daemon.store.size_on_disk(),
        sessions: daemon.store.session_count() as u64,
        connections: daemon.connections.load(Ordering::Relaxed),
        sends_in_flight: daemon.sends_in_flight.load(Ordering::Relaxed),
        model: live.model.clone(),
        base_url: live.base_url.clone(),
        breakers: vec![live.breaker.status(std::time::Instant::now()).into()],
        log_write_failures: ctx.diag.write_failures(),
        config_file: config.file.as_ref().map(|p| p.display().to_string()),
        config_reloads: daemon.reloads.load(Ordering::Relaxed),
        config_reload_failures: daemon.reload_failures.load(Ordering::Relaxed),
        store_health: match daemon.store.health() {
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
    })))
}
