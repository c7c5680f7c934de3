//! A spinner on stderr while omnictl waits (for the first token, or for a retry), only on a
//! terminal, so the screen is never silent while nothing arrives.

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

/// What the spinner line says at a moment: a countdown to a retry while one is due, then
/// the time spent waiting for the model since the prompt was stored.
fn line(now: Instant, retry_at: Option<Instant>, waiting_since: Instant) -> String {
    match retry_at {
        Some(at) if at > now => format!("retrying in {:.1} s", (at - now).as_secs_f64()),
        _ => format!(
            "waiting for the model · {:.1} s",
            (now - waiting_since).as_secs_f64()
        ),
    }
}

impl Spinner {
    /// Counts the time since `since` (when the prompt was stored) until the first token.
    pub fn waiting(since: Instant) -> Self {
        Self::run(None, since)
    }

    /// Counts down `wait` to the next attempt, then the time since `since` again.
    pub fn retrying(wait: Duration, since: Instant) -> Self {
        Self::run(Some(Instant::now() + wait), since)
    }

    fn run(retry_at: Option<Instant>, since: Instant) -> Self {
        if !std::io::stderr().is_terminal() {
            return Self::default();
        }
        let task = tokio::spawn(async move {
            for frame in FRAMES.iter().cycle() {
                let text = line(Instant::now(), retry_at, since);
                eprint!("\r\x1b[2K{frame} {text}");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_counts_down_to_a_retry_then_up_from_the_stored_prompt() {
        let stored = Instant::now();
        let now = stored + Duration::from_millis(2500);
        assert_eq!(line(now, None, stored), "waiting for the model · 2.5 s");
        let retry = Some(now + Duration::from_millis(1200));
        assert_eq!(line(now, retry, stored), "retrying in 1.2 s");
        let later = now + Duration::from_secs(2);
        assert_eq!(line(later, retry, stored), "waiting for the model · 4.5 s");
    }
}
