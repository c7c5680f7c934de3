//! Long output through a pager on a terminal (`$PAGER`, else `less -R`); anywhere else, or
//! with `--no-pager`, or when it fits the screen, printed as it is. Long means taller than
//! the screen once the terminal wraps it: a few very long lines page as many short ones do.

use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};

use super::width;
use crate::output;

/// Whether `text` fits on a screen of `columns` × `rows`, with a row left for the shell's
/// prompt after it.
fn fits(text: &str, (columns, rows): (usize, usize)) -> bool {
    width::rows(text, columns, rows) < rows
}

/// Shows `text`, through a pager when `allowed`, stdout is a terminal and the text is
/// taller than the screen. A pager that cannot start falls back to printing.
pub fn show(text: &str, allowed: bool) {
    let fits = width::terminal_size().is_none_or(|size| fits(text, size));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_lines_too_wide_for_the_screen_do_not_fit() {
        let wide = format!("{}\n", "x".repeat(1000));
        assert!(fits(&wide, (100, 40)), "1,000 columns take 10 rows of 100");
        assert!(!fits(&wide.repeat(4), (100, 40)), "four such lines take 40");
        assert!(fits("a\nb\n", (100, 40)));
    }
}
