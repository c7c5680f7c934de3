//! `omnictl status`: the daemon's version, uptime, socket, store and activity.

use omni_proto::{BreakerState, BreakerStatus, DaemonStatus, HealthState, Status, StoreHealth};

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::render;

pub async fn run(ctx: &mut Ctx) -> Result<(), CtlError> {
    let status = ctx.ask(Status).await?;
    if ctx.json {
        output::json(&status);
        return Ok(());
    }
    for line in lines(&status) {
        output::line(&line);
    }
    Ok(())
}

/// `n thing` or `n things`.
fn count(n: impl Into<u64>, thing: &str) -> String {
    let n = n.into();
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// What `status` prints, line by line.
fn lines(status: &DaemonStatus) -> Vec<String> {
    let mut lines = places(status);
    lines.extend(activity(status));
    lines.extend(notices(status));
    lines.extend(proxy(status));
    lines
}

/// Where the daemon is and what it serves: version, sockets, web, store, logs, model.
fn places(status: &DaemonStatus) -> Vec<String> {
    vec![
        format!(
            "omnid {} (protocol {}), pid {}, up {}",
            status.version,
            status.protocol_version,
            status.pid,
            render::duration(status.uptime_ms)
        ),
        format!("socket:   {}", status.socket),
        match &status.http_address {
            Some(address) => format!(
                "api:      {} and http://{address} (bearer token), HTTP/JSON",
                status.api_socket
            ),
            None => format!("api:      {} (HTTP/JSON)", status.api_socket),
        },
        match &status.web_address {
            Some(address) => {
                format!("web:      http://{address} (`omnictl web` logs a browser in)")
            }
            None => "web:      off (omnid --web-listen 127.0.0.1:PORT serves it)".to_string(),
        },
        format!(
            "store:    {} ({}, {}, {} loaded; {} and {} since start)",
            match &status.store_url {
                Some(url) => format!("{} {url}, as {}", status.store_kind, status.instance),
                None => status.data_dir.clone(),
            },
            render::bytes(status.store_bytes),
            count(status.sessions, "session"),
            status.sessions_loaded,
            count(status.store_commits, "commit"),
            count(status.store_syncs, "sync")
        ),
        health(&status.store_health),
        format!("logs:     {}", status.log_dir),
        format!("model:    {} at {}", status.model, status.base_url),
    ]
}

/// What it is doing: the current context, connections, reloads, today's usage.
fn activity(status: &DaemonStatus) -> Vec<String> {
    vec![
        match &status.current_context {
            Some(gauge) => format!(
                "context:  {} for {} in the current session",
                render::context::gauge(gauge).trim_start_matches("context "),
                gauge.model
            ),
            None => "context:  no current session".to_string(),
        },
        format!(
            "activity: {}, {} in flight",
            count(status.connections, "connection"),
            count(status.sends_in_flight, "send")
        ),
        format!(
            "config:   {} ({} applied, {} rejected)",
            status.config_file.as_deref().unwrap_or("no file"),
            count(status.config_reloads, "reload"),
            status.config_reload_failures
        ),
        format!(
            "diagnostics: {} could not be written",
            count(status.log_write_failures, "record")
        ),
        format!(
            "today:    {}, {}",
            count(status.usage_today.answers, "answer"),
            render::usage::line(&status.usage_today)
        ),
    ]
}

/// What needs a look: the context's warning, damaged sessions, breakers.
fn notices(status: &DaemonStatus) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(warning) = status
        .current_context
        .as_ref()
        .and_then(|g| g.warning.as_ref())
    {
        lines.push(format!("warning:  {warning}"));
    }
    lines.extend(status.damaged_sessions.iter().map(|damaged| {
        format!(
            "damaged:  session {} ({}): readable, takes no changes",
            damaged.id, damaged.reason
        )
    }));
    lines.extend(status.breakers.iter().map(breaker));
    lines
}

/// The proxy's counts, overall and per endpoint, when it runs.
fn proxy(status: &DaemonStatus) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(proxy) = &status.proxy {
        lines.push(format!(
            "proxy:    at http://{} · {}, {} healed, {} failed",
            proxy.address,
            count(proxy.requests, "request"),
            proxy.healed,
            proxy.failed
        ));
        lines.extend(proxy.endpoints.iter().map(|endpoint| {
            format!(
                "  {:<17} {}, {} healed, {} failed",
                format!("{}:", endpoint.api),
                count(endpoint.requests, "request"),
                endpoint.healed,
                endpoint.failed
            )
        }));
    }
    lines
}

fn health(health: &StoreHealth) -> String {
    match (&health.state, &health.reason) {
        (HealthState::Failing, reason) => format!(
            "health:   store failing since {}: {}",
            health
                .since_ms
                .map_or_else(|| "?".to_string(), render::timestamp),
            reason.as_deref().unwrap_or("unknown")
        ),
        (HealthState::Ok, _) => "health:   store ok".to_string(),
    }
}

fn breaker(breaker: &BreakerStatus) -> String {
    let state = match (breaker.state, breaker.next_probe_in_ms) {
        (BreakerState::Closed, _) => "closed".to_string(),
        (BreakerState::Open, Some(ms)) => format!(
            "open: failing fast, next probe in {:.1} s",
            ms as f64 / 1000.0
        ),
        (BreakerState::Open, None) => "open".to_string(),
        (BreakerState::HalfOpen, _) => "half-open: one probe may go through".to_string(),
    };
    format!(
        "breaker:  {state} ({} in a row) for {}",
        count(breaker.consecutive_failures, "failed attempt"),
        breaker.endpoint
    )
}

/// `omnictl status` takes no arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx).await
    }
}
