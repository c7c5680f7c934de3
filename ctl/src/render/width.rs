//! Text measured as a terminal shows it: columns taken (escape codes take none, wide
//! characters two), rows a text takes once the terminal wraps it, lines wrapped at words
//! and lines cut to a width.

use std::io::IsTerminal;

use unicode_width::UnicodeWidthChar;

/// The width of the terminal stdout is on, when it is on one.
pub fn stdout_columns() -> Option<usize> {
    std::io::stdout()
        .is_terminal()
        .then(terminal_columns)
        .flatten()
}

/// The width of the terminal stderr is on, when it is on one.
pub fn stderr_columns() -> Option<usize> {
    std::io::stderr()
        .is_terminal()
        .then(terminal_columns)
        .flatten()
}

/// The terminal's size in columns and rows, if it can be had.
pub fn terminal_size() -> Option<(usize, usize)> {
    crossterm::terminal::size()
        .ok()
        .filter(|(cols, rows)| *cols > 0 && *rows > 0)
        .map(|(cols, rows)| (cols as usize, rows as usize))
}

fn terminal_columns() -> Option<usize> {
    terminal_size().map(|(cols, _)| cols)
}

/// The visible characters of `text` with their widths: ANSI escape sequences (colours,
/// styles) are skipped.
fn visible_chars(text: &str) -> impl Iterator<Item = (char, usize)> + '_ {
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || {
        loop {
            let c = chars.next()?;
            if c != '\x1b' {
                return Some((c, c.width().unwrap_or(0)));
            }
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            } else {
                chars.next();
            }
        }
    })
}

/// The columns one line takes (escape codes take none).
pub fn visible_width(line: &str) -> usize {
    visible_chars(line).map(|(_, w)| w).sum()
}

/// The rows `text` takes on a terminal `columns` wide, long lines wrapped, counting no
/// further than `enough` (a caller that asks "more than a screen?" need not measure
/// megabytes).
pub fn rows(text: &str, columns: usize, enough: usize) -> usize {
    let columns = columns.max(1);
    let mut total = 0;
    for line in text.split('\n') {
        total += visible_width(line).div_ceil(columns).max(1);
        if total >= enough {
            return total;
        }
    }
    // `split` yields an empty piece after a final newline: it takes no row.
    if text.ends_with('\n') {
        total -= 1;
    }
    total
}

/// `line` cut to at most `columns` visible columns, ending in `…` when cut. Escape codes
/// are kept only when nothing is cut (a cut line is returned plain).
pub fn cut(line: &str, columns: usize) -> String {
    if visible_width(line) <= columns {
        return line.to_string();
    }
    let room = columns.saturating_sub(1);
    let mut out = String::new();
    let mut used = 0;
    for (c, w) in visible_chars(line) {
        if used + w > room {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `text` (plain, no escape codes) broken into lines of at most `columns`, at spaces; a
/// word longer than a line is split where it must be, and a newline always breaks.
pub fn wrap_words(text: &str, columns: usize) -> Vec<String> {
    text.split('\n')
        .flat_map(|paragraph| wrap_paragraph(paragraph, columns))
        .collect()
}

fn wrap_paragraph(text: &str, columns: usize) -> Vec<String> {
    let columns = columns.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let width = visible_width(word);
        if used > 0 && used + 1 + width <= columns {
            line.push(' ');
            line.push_str(word);
            used += 1 + width;
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        for (c, w) in visible_chars(word) {
            if used + w > columns && used > 0 {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += w;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_take_no_columns_and_wide_characters_two() {
        assert_eq!(visible_width("\x1b[1;31mred\x1b[0m"), 3);
        assert_eq!(visible_width("日本"), 4);
    }

    #[test]
    fn rows_count_wrapped_lines() {
        assert_eq!(rows("a\nb\n", 10, 100), 2);
        assert_eq!(rows(&"x".repeat(25), 10, 100), 3);
        assert_eq!(rows("\n\n", 10, 100), 2);
        assert_eq!(rows(&"x\n".repeat(1000), 10, 50), 50);
    }

    #[test]
    fn words_wrap_whole_and_only_overlong_ones_split() {
        assert_eq!(
            wrap_words("Please try again later", 10),
            ["Please try", "again", "later"]
        );
        assert_eq!(wrap_words("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
        assert_eq!(wrap_words("", 5), [""]);
        assert_eq!(wrap_words("one two\nthree", 20), ["one two", "three"]);
    }

    #[test]
    fn a_cut_line_ends_in_an_ellipsis_within_the_width() {
        assert_eq!(cut("hello world", 8), "hello w…");
        assert_eq!(cut("short", 8), "short");
        assert_eq!(visible_width(&cut("日本語の文", 5)), 5);
    }
}
