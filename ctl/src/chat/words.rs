//! What the chat prints about itself and the daemon's messages, as a person at the chat
//! reads them: advice for the command line said in the chat's own commands (`/back`, not
//! `omnictl back`), and lines wrapped at words to the terminal (a terminal breaks them
//! mid-word).

use crate::render::width;

/// The chat's slash commands that have an `omnictl` command of the same name.
const SAME_NAME: &[&str] = &[
    "undo", "redo", "back", "retry", "branches", "checkout", "history", "tree", "compact",
    "recover", "export", "search", "sessions", "rename", "new", "status", "model", "resume",
];

/// `message` with every `` `omnictl COMMAND ARGS` `` the chat has a command for said as
/// `` `/COMMAND` `` (the session's id, which the chat knows, dropped; other arguments kept).
pub fn in_chat_terms(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("`omnictl ") {
        let inside = &rest[at + "`omnictl ".len()..];
        let Some(end) = inside.find('`') else { break };
        let mut words = inside[..end].split_whitespace();
        let command = words.next().unwrap_or_default();
        out.push_str(&rest[..at]);
        if SAME_NAME.contains(&command) {
            let kept: Vec<&str> = words.filter(|w| !looks_like_an_id(w)).collect();
            out.push_str(&format!(
                "`/{}`",
                [&[command][..], &kept].concat().join(" ")
            ));
        } else {
            out.push_str(&rest[at..at + "`omnictl ".len() + end + 1]);
        }
        rest = &inside[end + 1..];
    }
    out.push_str(rest);
    out
}

/// A session id (or `-s ID`), which the chat needs no one to type.
fn looks_like_an_id(word: &str) -> bool {
    word == "-s" || (word.len() >= 32 && word.chars().all(|c| c.is_ascii_hexdigit() || c == '-'))
}

/// `text` as lines for stderr: wrapped at words to its terminal's width, when it is one.
pub fn for_stderr(text: &str) -> Vec<String> {
    match width::stderr_columns() {
        Some(columns) => width::wrap_words(text, columns),
        None => text.lines().map(str::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_advice_becomes_the_chats_commands() {
        let id = "0f8e5a8c-1b2d-4e3f-9a0b-1c2d3e4f5a6b";
        assert_eq!(
            in_chat_terms(&format!(
                "suspended: resume with `omnictl resume {id}`, or `omnictl back` to drop it"
            )),
            "suspended: resume with `/resume`, or `/back` to drop it"
        );
        assert_eq!(
            in_chat_terms("see `omnictl logs export` and `omnictl recover -s abc clear`"),
            "see `omnictl logs export` and `/recover abc clear`"
        );
        assert_eq!(in_chat_terms("no advice"), "no advice");
        assert_eq!(
            in_chat_terms("a lone `omnictl back"),
            "a lone `omnictl back"
        );
    }
}
