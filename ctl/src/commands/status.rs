//! `omnictl status`: the daemon's version, uptime, socket, store and activity.

use omni_proto::{BreakerState, HealthState, Reply, Request};

use super::{Ctx, unexpected};
use crate::error::CtlError;
use crate::output;
use crate::render;

pub async fn run(ctx: &mut Ctx) -> Result<(), CtlError> {
    let status = match ctx.ask(Request::Status).await? {
        Reply::Status(status) => status,
        other => return Err(unexpected(other)),
    };
    if ctx.json {
        output::json(&status);
        return Ok(());
    }
    let lines = [
        format!(
            "omnid {} (protocol {}), pid {}, up {}",
            status.version,
            status.protocol_version,
            status.pid,
            render::duration(status.uptime_ms)
        ),
        format!("socket:   {}", status.socket),
        format!(
            "store:    {} ({}, {} session{})",
            status.data_dir,
            render::bytes(status.store_bytes),
            status.sessions,
            if status.sessions == 1 { "" } else { "s" }
        ),
        match (&status.store_health.state, &status.store_health.reason) {
            (HealthState::Failing, reason) => format!(
                "health:   store failing since {}: {}",
                status
                    .store_health
                    .since_ms
                    .map_or_else(|| "?".to_string(), render::timestamp),
                reason.as_deref().unwrap_or("unknown")
            ),
            (HealthState::Ok, _) => "health:   store ok".to_string(),
        },
        format!("logs:     {}", status.log_dir),
        format!("model:    {} at {}", status.model, status.base_url),
        format!(
            "activity: {} connection{}, {} send{} in flight",
            status.connections,
            if status.connections == 1 { "" } else { "s" },
            status.sends_in_flight,
            if status.sends_in_flight == 1 { "" } else { "s" }
        ),
        format!(
            "config:   {} ({} reload{} applied, {} rejected)",
            status.config_file.as_deref().unwrap_or("no file"),
            status.config_reloads,
            if status.config_reloads == 1 { "" } else { "s" },
            status.config_reload_failures
        ),
        format!(
            "diagnostics: {} record{} could not be written",
            status.log_write_failures,
            if status.log_write_failures == 1 {
                ""
            } else {
                "s"
            }
        ),
    ];
    for line in lines {
        output::line(&line);
    }
    for damaged in &status.damaged_sessions {
        output::line(&format!(
            "damaged:  session {} ({}): readable, takes no changes",
            damaged.id, damaged.reason
        ));
    }
    for breaker in &status.breakers {
        let state = match (breaker.state, breaker.next_probe_in_ms) {
            (BreakerState::Closed, _) => "closed".to_string(),
            (BreakerState::Open, Some(ms)) => {
                format!(
                    "open: failing fast, next probe in {:.1} s",
                    ms as f64 / 1000.0
                )
            }
            (BreakerState::Open, None) => "open".to_string(),
            (BreakerState::HalfOpen, _) => "half-open: one probe may go through".to_string(),
        };
        output::line(&format!(
            "breaker:  {state} ({} failed attempt{} in a row) for {}",
            breaker.consecutive_failures,
            if breaker.consecutive_failures == 1 {
                ""
            } else {
                "s"
            },
            breaker.endpoint
        ));
    }
    Ok(())
}
