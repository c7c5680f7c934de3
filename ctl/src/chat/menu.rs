//! A menu in the terminal: ↑/↓ (or j/k) move, a number or Enter chooses, Esc leaves.
//! Drawn on stderr in raw mode, and redrawn in place.

use std::io::{self, Write};

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::terminal;

/// One entry of a menu.
pub struct Choice {
    /// What it is.
    pub label: String,
    /// What it will do, shown beside it before it is picked.
    pub detail: String,
}

/// Raw mode for as long as it lives.
struct RawMode;

impl RawMode {
    fn enter() -> io::Result<Self> {
        terminal::enable_raw_mode()?;
        Ok(Self)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = terminal::disable_raw_mode();
    }
}

/// The terminal's width less one column, so that no line wraps (the redraw counts one row
/// per choice).
fn usable_width() -> usize {
    terminal::size()
        .map(|(cols, _)| cols as usize)
        .unwrap_or(80)
        .saturating_sub(1)
        .max(20)
}

fn draw(out: &mut impl Write, choices: &[Choice], selected: usize) -> io::Result<()> {
    let width = usable_width().saturating_sub(2);
    for (i, choice) in choices.iter().enumerate() {
        let line = format!("{}) {:<14} {}", i + 1, choice.label, choice.detail);
        let line: String = line.chars().take(width).collect();
        if i == selected {
            write!(out, "\r\x1b[2K\x1b[7m› {line}\x1b[0m\r\n")?;
        } else {
            write!(out, "\r\x1b[2K  {line}\r\n")?;
        }
    }
    write!(
        out,
        "\r\x1b[2K\x1b[2m↑/↓ move · 1-{} or Enter choose · Esc leave\x1b[0m",
        choices.len()
    )?;
    out.flush()
}

/// Shows the menu and returns the index chosen, or `None` for Esc (or Ctrl-C).
pub fn pick(choices: &[Choice]) -> io::Result<Option<usize>> {
    let mut out = io::stderr();
    let _raw = RawMode::enter()?;
    let mut selected = 0;
    draw(&mut out, choices, selected)?;
    let picked = loop {
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => selected = selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                selected = (selected + 1).min(choices.len().saturating_sub(1))
            }
            KeyCode::Enter => break Some(selected),
            KeyCode::Esc => break None,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => break None,
            KeyCode::Char(digit) => {
                if let Some(n) = digit.to_digit(10).map(|n| n as usize)
                    && (1..=choices.len()).contains(&n)
                {
                    break Some(n - 1);
                }
            }
            _ => {}
        }
        // Back to the first line of the menu, and draw it again.
        write!(out, "\r\x1b[{}A", choices.len())?;
        draw(&mut out, choices, selected)?;
    };
    write!(out, "\r\x1b[2K\r\n")?;
    out.flush()?;
    Ok(picked)
}
