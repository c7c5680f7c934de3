//! What one complete entry of the chat is (a prompt, a command, a `"""` block, or
//! the end), whichever input it came from: the editor and piped stdin both classify with
//! these rules.

/// The line that opens and closes a multi-line prompt.
pub const BLOCK: &str = "\"\"\"";

/// One thing the user entered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A prompt (or, while function calls wait, a result).
    Text(String),
    /// A line starting with `/`.
    Command(String),
    /// Nothing: an empty line.
    Empty,
    /// Ctrl-C at the prompt.
    Interrupted,
    /// Ctrl-D, or the end of the piped input.
    End,
    /// The terminal failed.
    Broken(String),
}

/// Whether a multi-line prompt is still open: its first line is `"""` and no later line
/// closes it.
pub fn block_is_open(lines: &[&str]) -> bool {
    match lines.split_first() {
        Some((first, rest)) if first.trim() == BLOCK => {
            !rest.iter().any(|line| line.trim() == BLOCK)
        }
        _ => false,
    }
}

/// What a complete entry is: a `"""` block's inside, a command, or a prompt.
pub fn classify(text: &str) -> Line {
    let lines: Vec<&str> = text.lines().collect();
    if let Some((first, rest)) = lines.split_first()
        && first.trim() == BLOCK
    {
        let inside: Vec<&str> = rest
            .iter()
            .take_while(|l| l.trim() != BLOCK)
            .copied()
            .collect();
        return Line::Text(inside.join("\n"));
    }
    let trimmed = text.trim();
    if trimmed.is_empty() {
        Line::Empty
    } else if trimmed.starts_with('/') && !text.contains('\n') {
        Line::Command(trimmed.to_string())
    } else {
        Line::Text(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_block_waits_for_its_closing_line() {
        assert!(block_is_open(&["\"\"\"", "a"]));
        assert!(!block_is_open(&["\"\"\"", "a", "\"\"\""]));
        assert!(!block_is_open(&["plain"]));
    }
}
