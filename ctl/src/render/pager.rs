//! Long output through a pager on a terminal (`$PAGER`, else `less -R`); anywhere else, or
//! with `--no-pager`, or when it fits the screen, printed as it is.

use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};

use crate::output;

/// Shows `text`, through a pager when `allowed`, stdout is a terminal and the text is
/// taller than the screen. A pager that cannot start falls back to printing.
pub fn show(text: &str, allowed: bool) {
    let fits = crossterm::terminal::size()
        .map(|(_, rows)| text.lines().count() < rows as usize)
        .unwrap_or(true);
    if !allowed || fits || !std::io::stdout().is_terminal() {
        output::print(text);
        return;
    }
    let pager = std::env::var("PAGER")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "less -R".to_string());
    let mut words = pager.split_whitespace();
    let Some(program) = words.next() else {
        output::print(text);
        return;
    };
    let spawned = Command::new(program)
        .args(words)
        .env(
            "LESS",
            std::env::var("LESS").unwrap_or_else(|_| "FRX".into()),
        )
        .stdin(Stdio::piped())
        .spawn();
    let Ok(mut child) = spawned else {
        output::print(text);
        return;
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A pager quit early closes its input: that is not an error.
        let _ = stdin.write_all(text.as_bytes());
    }
    let _ = child.wait();
}
