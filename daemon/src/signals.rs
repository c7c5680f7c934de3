//! Signals: the first SIGTERM or SIGINT asks for a clean shutdown and a second exits at
//! once; SIGHUP asks for the configuration to be reloaded.

use std::io;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Exit status used when a second signal cuts the drain short.
pub const FORCED_EXIT: i32 = 130;

/// Starts a thread that cancels `shutdown` on the first SIGTERM/SIGINT, exits the process
/// on the second, and sends on `reload` for every SIGHUP.
pub fn install(shutdown: CancellationToken, reload: mpsc::UnboundedSender<()>) -> io::Result<()> {
    let mut signals = Signals::new([SIGTERM, SIGINT, SIGHUP])?;
    std::thread::Builder::new()
        .name("omnid-signals".into())
        .spawn(move || {
            let mut stops = 0;
            for signal in signals.forever() {
                if signal == SIGHUP {
                    tracing::info!("SIGHUP received: reloading the configuration");
                    let _ = reload.send(());
                    continue;
                }
                stops += 1;
                let name = if signal == SIGTERM {
                    "SIGTERM"
                } else {
                    "SIGINT"
                };
                if stops == 1 {
                    tracing::info!(
                        "{name} received: shutting down (send it again to exit at once)"
                    );
                    shutdown.cancel();
                } else {
                    tracing::warn!("{name} received again: exiting without waiting");
                    std::process::exit(FORCED_EXIT);
                }
            }
        })?;
    Ok(())
}
