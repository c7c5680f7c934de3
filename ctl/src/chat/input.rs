//! Where the chat's lines come from: the line editor at a terminal, or stdin read line by
//! line when piped. Both give the same [`Line`]s, so a script behaves as a person would.

use std::io::BufRead;

use super::editor::LineEditor;
pub use super::entry::Line;
use super::entry::{BLOCK, classify};

/// The chat's input.
pub enum Input {
    /// A person at a terminal.
    Editor(Box<Option<LineEditor>>),
    /// Lines from a pipe or a file.
    Piped(Box<dyn BufRead + Send>),
}

impl Input {
    /// Tab offers the node numbers of `session` (the editor's completion).
    pub fn follow(&mut self, session: &str) {
        if let Input::Editor(slot) = self
            && let Some(editor) = slot.as_mut()
        {
            editor.follow(session);
        }
    }

    /// Reads the next entry; `initial` is put in the editor (ignored when piped).
    pub async fn next(&mut self, prompt: &str, initial: &str) -> Line {
        match self {
            Input::Editor(slot) => {
                let Some(mut editor) = slot.take() else {
                    return Line::Broken("the line editor is gone".into());
                };
                let (prompt, initial) = (prompt.to_string(), initial.to_string());
                let read = tokio::task::spawn_blocking(move || {
                    let line = editor.read(&prompt, &initial);
                    (editor, line)
                })
                .await;
                match read {
                    Ok((editor, line)) => {
                        **slot = Some(editor);
                        line
                    }
                    Err(error) => Line::Broken(error.to_string()),
                }
            }
            Input::Piped(reader) => read_piped(reader.as_mut()),
        }
    }
}

/// Reads one entry from piped input: a line, or a whole `"""` block.
fn read_piped(reader: &mut dyn BufRead) -> Line {
    let mut first = String::new();
    match reader.read_line(&mut first) {
        Ok(0) => return Line::End,
        Ok(_) => {}
        Err(error) => return Line::Broken(error.to_string()),
    }
    let first = first.trim_end_matches(['\n', '\r']).to_string();
    if first.trim() != BLOCK {
        return classify(&first);
    }
    let mut lines = vec![first];
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(error) => return Line::Broken(error.to_string()),
        }
        let line = line.trim_end_matches(['\n', '\r']).to_string();
        let closes = line.trim() == BLOCK;
        lines.push(line);
        if closes {
            break;
        }
    }
    classify(&lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<Line> {
        let mut reader = text.as_bytes();
        let mut lines = Vec::new();
        loop {
            match read_piped(&mut reader) {
                Line::End => return lines,
                line => lines.push(line),
            }
        }
    }

    #[test]
    fn piped_lines_are_prompts_commands_and_blocks() {
        let lines = all("hi there\n/undo\n\n\"\"\"\nline one\n/not a command\n\"\"\"\n/quit\n");
        assert_eq!(
            lines,
            [
                Line::Text("hi there".into()),
                Line::Command("/undo".into()),
                Line::Empty,
                Line::Text("line one\n/not a command".into()),
                Line::Command("/quit".into()),
            ]
        );
    }
}
