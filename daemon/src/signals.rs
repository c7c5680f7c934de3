//! SIGTERM and SIGINT: the first asks for a clean shutdown, a second exits at once.

use std::io;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use tokio_util::sync::CancellationToken;

/// Exit status used when a second signal cuts the drain short.
pub const FORCED_EXIT: i32 = 130;

/// Starts a thread that cancels `shutdown` on the first SIGTERM/SIGINT and exits the
/// process on the second.
pub fn install(shutdown: CancellationToken) -> io::Result<()> {
    let mut signals = Signals::new([SIGTERM, SIGINT])?;
    std::thread::Builder::new()
        .name("omnid-signals".into())
        .spawn(move || {
            let mut received = 0;
            for signal in signals.forever() {
                received += 1;
                let name = if signal == SIGTERM {
                    "SIGTERM"
                } else {
                    "SIGINT"
                };
                if received == 1 {
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
