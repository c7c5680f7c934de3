//! `omnictl status`: the daemon's version, uptime, socket, store and activity.

use omni_proto::{Reply, Request};

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
        format!("logs:     {}", status.log_dir),
        format!("model:    {} at {}", status.model, status.base_url),
        format!(
            "activity: {} connection{}, {} send{} in flight",
            status.connections,
            if status.connections == 1 { "" } else { "s" },
            status.sends_in_flight,
            if status.sends_in_flight == 1 { "" } else { "s" }
        ),
    ];
    for line in lines {
        output::line(&line);
    }
    Ok(())
}
