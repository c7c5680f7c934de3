//! Answers rendered as markdown while they stream (termimad): each line is shown raw as
//! its tokens arrive, then replaced by its rendering once complete, wrapped at word
//! boundaries to the terminal's width. Code fences and tables are rendered as blocks.

use termimad::MadSkin;
use unicode_width::UnicodeWidthStr;

/// The state of one streamed answer.
pub struct Markdown {
    skin: MadSkin,
    width: usize,
    /// The line being received, shown raw so far.
    partial: String,
    /// Inside a ``` fence: its lines so far.
    fence: Option<Vec<String>>,
    /// Consecutive table rows so far.
    table: Vec<String>,
}

impl Markdown {
    /// A renderer for a terminal `width` columns wide.
    pub fn new(width: usize) -> Self {
        Self {
            skin: MadSkin::default(),
            width: width.max(20),
            partial: String::new(),
            fence: None,
            table: Vec::new(),
        }
    }

    /// Takes the next piece of the answer; returns what to write to the terminal.
    pub fn push(&mut self, text: &str) -> String {
        let mut out = String::new();
        let mut pieces = text.split('\n').peekable();
        while let Some(piece) = pieces.next() {
            if pieces.peek().is_none() {
                // No newline after this piece: the line is still coming.
                self.partial.push_str(piece);
                out.push_str(piece);
                break;
            }
            out.push_str(&self.erase_partial());
            let line = std::mem::take(&mut self.partial) + piece;
            out.push_str(&self.complete_line(&line));
        }
        out
    }

    /// Ends the answer: renders what is left.
    pub fn finish(&mut self) -> String {
        let mut out = self.erase_partial();
        let line = std::mem::take(&mut self.partial);
        if !line.is_empty() {
            out.push_str(&self.complete_line(&line));
        }
        out.push_str(&self.flush_table());
        if let Some(lines) = self.fence.take() {
            out.push_str(&self.code(&lines));
        }
        out
    }

    /// Moves the cursor back over the raw partial line and clears from there down.
    fn erase_partial(&self) -> String {
        let shown = self.partial.width();
        if shown == 0 {
            return String::new();
        }
        let rows_above = (shown - 1) / self.width;
        format!("\r{}\x1b[J", "\x1b[1A".repeat(rows_above))
    }

    fn complete_line(&mut self, line: &str) -> String {
        let fence_mark = line.trim_start().starts_with("```");
        if let Some(lines) = &mut self.fence {
            if fence_mark {
                let lines = std::mem::take(lines);
                self.fence = None;
                return self.code(&lines);
            }
            lines.push(line.to_string());
            return String::new();
        }
        let mut out = String::new();
        if line.trim_start().starts_with('|') {
            self.table.push(line.to_string());
            return out;
        }
        out.push_str(&self.flush_table());
        if fence_mark {
            self.fence = Some(Vec::new());
            return out;
        }
        out.push_str(&self.render(line));
        out
    }

    fn flush_table(&mut self) -> String {
        if self.table.is_empty() {
            return String::new();
        }
        let table = std::mem::take(&mut self.table).join("\n");
        self.render(&table)
    }

    fn code(&self, lines: &[String]) -> String {
        self.render(&format!("```\n{}\n```", lines.join("\n")))
    }

    fn render(&self, text: &str) -> String {
        if text.trim().is_empty() {
            return "\n".to_string();
        }
        let rendered = self.skin.text(text, Some(self.width)).to_string();
        if rendered.ends_with('\n') {
            rendered
        } else {
            rendered + "\n"
        }
    }
}

/// Strips ANSI escape sequences, for tests that read what the user would see.
#[cfg(test)]
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_in_pieces(text: &str, piece: usize) -> String {
        let mut md = Markdown::new(40);
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::new();
        for chunk in chars.chunks(piece) {
            out.push_str(&md.push(&chunk.iter().collect::<String>()));
        }
        out + &md.finish()
    }

    #[test]
    fn headings_and_emphasis_lose_their_markers_and_gain_styles() {
        let out = render_in_pieces("# Title\nsome **bold** text\n", 3);
        assert!(out.contains("\x1b["), "styled: {out:?}");
        let last = out.rsplit('\r').next().unwrap_or_default();
        assert!(!plain(last).contains("**"), "{out:?}");
        assert!(plain(&out).contains("bold"));
    }

    #[test]
    fn long_lines_wrap_at_word_boundaries() {
        let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu\n";
        let md = Markdown::new(40);
        let lines: Vec<String> = plain(&md.render(text.trim_end()))
            .lines()
            .map(str::to_string)
            .collect();
        assert!(lines.len() >= 2, "{lines:?}");
        for line in &lines {
            assert!(line.width() <= 40, "{line:?}");
            assert!(!line.ends_with("alph"), "no word is split: {lines:?}");
        }
    }

    #[test]
    fn a_code_fence_is_rendered_whole_without_its_markers() {
        let out = render_in_pieces("```\nlet x = 1;\n```\nafter\n", 5);
        let seen = plain(&out);
        assert!(seen.contains("let x = 1;"), "{seen:?}");
        assert!(seen.contains("after"));
        let rendered_code = plain(&Markdown::new(40).code(&["let x = 1;".into()]));
        assert!(!rendered_code.contains("```"), "{rendered_code:?}");
    }
}
