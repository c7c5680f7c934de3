//! A spinner on stderr while omnictl waits (for a retry), only on a terminal.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::Instant;

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// A running spinner; stops (and clears its line) when told or dropped.
#[derive(Default)]
pub struct Spinner {
    task: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Shows `label` with a countdown of `wait`, if stderr is a terminal.
    pub fn start(label: &str, wait: Duration) -> Self {
        if !std::io::stderr().is_terminal() || wait.is_zero() {
            return Self::default();
        }
        let label = label.to_string();
        let until = Instant::now() + wait;
        let task = tokio::spawn(async move {
            for frame in FRAMES.iter().cycle() {
                let left = until.saturating_duration_since(Instant::now());
                eprint!("\r\x1b[2K{frame} {label} in {:.1} s", left.as_secs_f64());
                let _ = std::io::stderr().flush();
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        Self { task: Some(task) }
    }

    /// Stops the spinner and clears its line.
    pub fn stop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}
