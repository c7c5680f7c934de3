//! The chat's slash commands: one table gives their names, arguments and help (for
//! `/help` and completion), and one parser turns a typed line into a [`Slash`].

use std::path::PathBuf;

use omni_proto::RecoveryAction;

/// One slash command as `/help` lists it.
pub struct Spec {
    /// The command, with its slash.
    pub name: &'static str,
    /// Its arguments, as help shows them.
    pub args: &'static str,
    /// One line on what it does.
    pub help: &'static str,
}

/// Every slash command, in `/help` order.
pub const COMMANDS: &[Spec] = &[
    spec(
        "/undo",
        "",
        "drop the last answer from the context (keeps the prompt)",
    ),
    spec("/redo", "", "take the last undo or back back"),
    spec(
        "/back",
        "",
        "drop the last whole round (prompt, answer, tool calls)",
    ),
    spec(
        "/edit",
        "[N]",
        "edit prompt N (default: the last); sending forks a branch before it",
    ),
    spec("/retry", "", "answer the pending prompt again, as it is"),
    spec("/branches", "", "every branch; * marks the current one"),
    spec("/checkout", "N", "continue from node N (0 = the start)"),
    spec(
        "/history",
        "[--active] [--full]",
        "the transcript (--active: only what the model sees; --full: huge entries whole)",
    ),
    spec(
        "/tree",
        "",
        "the session as a tree, with why each node is out of the context",
    ),
    spec(
        "/compact",
        "[N] [TEXT]",
        "summarise all but the last N rounds (default 2) into one node; /undo brings them back",
    ),
    spec(
        "/recover",
        "[compact|deep|clear|ignore|retry]",
        "choose how a session that needs recovery goes on",
    ),
    spec(
        "/export",
        "[FILE]",
        "write the diagnostic bundle of this session",
    ),
    spec(
        "/search",
        "WORDS",
        "find WORDS in every session and branch (checkout N or history --around N go there)",
    ),
    spec("/sessions", "", "all sessions; * marks the current one"),
    spec(
        "/switch",
        "ID",
        "continue another session (an id or title prefix)",
    ),
    spec("/rename", "TITLE", "name this session"),
    spec("/new", "", "start a new session"),
    spec("/status", "", "the daemon's health"),
    spec(
        "/model",
        "[REF]",
        "the model asked and its fallbacks, or switch to REF (PROVIDER/MODEL)",
    ),
    spec(
        "/resume",
        "",
        "lift the session's suspension after repeated failed sends",
    ),
    spec(
        "/skip",
        "",
        "leave the model's function calls unanswered (undoes them)",
    ),
    spec("/help", "", "this list"),
    spec("/quit", "", "leave the chat (Ctrl-D too)"),
];

const fn spec(name: &'static str, args: &'static str, help: &'static str) -> Spec {
    Spec { name, args, help }
}

/// A parsed slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slash {
    Undo,
    Redo,
    Back,
    Edit(Option<u64>),
    Retry,
    Branches,
    Checkout(u64),
    History {
        active: bool,
        full: bool,
    },
    Tree,
    Compact {
        keep: Option<u32>,
        instructions: Option<String>,
    },
    Recover(Option<RecoveryAction>),
    Export(Option<PathBuf>),
    Search(String),
    Sessions,
    Switch(String),
    New,
    Status,
    Model(Option<String>),
    Rename(String),
    Resume,
    Skip,
    Help,
    Quit,
}

/// A node number as listings print it: `12` or `#12`.
fn node(word: &str) -> Result<u64, String> {
    word.strip_prefix('#')
        .unwrap_or(word)
        .parse()
        .map_err(|_| format!("'{word}' is not a node number (such as 12 or #12)"))
}

/// Parses a line that starts with `/`. The error says what was wrong and what to type.
pub fn parse(line: &str) -> Result<Slash, String> {
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or("/");
    let args: Vec<&str> = words.collect();
    let no_args = |slash: Slash| {
        if args.is_empty() {
            Ok(slash)
        } else {
            Err(format!("{name} takes no arguments"))
        }
    };
    match name {
        "/undo" => no_args(Slash::Undo),
        "/redo" => no_args(Slash::Redo),
        "/back" => no_args(Slash::Back),
        "/retry" => no_args(Slash::Retry),
        "/branches" => no_args(Slash::Branches),
        "/tree" => no_args(Slash::Tree),
        "/sessions" => no_args(Slash::Sessions),
        "/new" => no_args(Slash::New),
        "/status" => no_args(Slash::Status),
        "/model" => match args.as_slice() {
            [] => Ok(Slash::Model(None)),
            [reference] => Ok(Slash::Model(Some((*reference).to_string()))),
            _ => Err("usage: /model [REF] (MODEL or PROVIDER/MODEL)".into()),
        },
        "/rename" => match args.as_slice() {
            [] => Err("usage: /rename TITLE".into()),
            words => Ok(Slash::Rename(words.join(" "))),
        },
        "/resume" => no_args(Slash::Resume),
        "/skip" => no_args(Slash::Skip),
        "/help" | "/?" => no_args(Slash::Help),
        "/quit" | "/exit" => no_args(Slash::Quit),
        "/edit" => match args.as_slice() {
            [] => Ok(Slash::Edit(None)),
            [n] => node(n).map(|n| Slash::Edit(Some(n))),
            _ => Err("usage: /edit [N]".into()),
        },
        "/checkout" => match args.as_slice() {
            [n] => node(n).map(Slash::Checkout),
            _ => Err("usage: /checkout N (a node number, as /history prints it)".into()),
        },
        "/history" => match args.iter().find(|a| !["--active", "--full"].contains(a)) {
            None => Ok(Slash::History {
                active: args.contains(&"--active"),
                full: args.contains(&"--full"),
            }),
            Some(_) => Err("usage: /history [--active] [--full]".into()),
        },
        "/compact" => Ok(compact(&args)),
        "/recover" => match args.as_slice() {
            [] => Ok(Slash::Recover(None)),
            [choice] => RecoveryAction::ALL
                .into_iter()
                .find(|a| a.flag().trim_start_matches('-') == *choice)
                .map(|a| Slash::Recover(Some(a)))
                .ok_or_else(|| {
                    format!("'{choice}' is not one of compact, deep, clear, ignore, retry")
                }),
            _ => Err("usage: /recover [compact|deep|clear|ignore|retry]".into()),
        },
        "/export" => match args.as_slice() {
            [] => Ok(Slash::Export(None)),
            [file] => Ok(Slash::Export(Some(PathBuf::from(file)))),
            _ => Err("usage: /export [FILE]".into()),
        },
        "/search" if args.is_empty() => Err("usage: /search WORDS".into()),
        "/search" => Ok(Slash::Search(args.join(" "))),
        "/switch" => match args.as_slice() {
            [id] => Ok(Slash::Switch((*id).to_string())),
            _ => Err("usage: /switch ID (a session id or a unique prefix)".into()),
        },
        other => Err(format!("{other} is not a command; /help lists them")),
    }
}

/// `/compact [N] [TEXT]`: a first word that is a number is the rounds kept, the rest
/// the summary's instructions.
fn compact(args: &[&str]) -> Slash {
    let (keep, rest) = match args.split_first() {
        Some((first, rest)) if first.parse::<u32>().is_ok() => (first.parse().ok(), rest),
        _ => (None, args),
    };
    let instructions = (!rest.is_empty()).then(|| rest.join(" "));
    Slash::Compact { keep, instructions }
}

/// The `/help` text.
pub fn help() -> String {
    let mut text = String::new();
    for spec in COMMANDS {
        let usage = format!("{} {}", spec.name, spec.args);
        text.push_str(&format!("  {usage:<34} {}\n", spec.help));
    }
    text.push_str(
        "  a line that does not start with / is a prompt; \"\"\" opens and closes a \
         multi-line one\n",
    );
    text.push_str("with `omnid --demo` (or `omnictl demo --keep`), a tag in a prompt asks the demo model for:\n");
    for demo in omni_proto::DEMO_TAGS {
        text.push_str(&format!("  {:<34} {}\n", demo.tag, demo.shows));
    }
    text
}

/// Completions for the word being typed at `pos`: command names, then their fixed
/// arguments. Returns where the completed word starts.
pub fn complete(line: &str, pos: usize) -> (usize, Vec<String>) {
    let typed = &line[..pos];
    if !typed.starts_with('/') {
        return (pos, Vec::new());
    }
    match typed.split_once(' ') {
        None => (
            0,
            COMMANDS
                .iter()
                .filter(|s| s.name.starts_with(typed))
                .map(|s| s.name.to_string())
                .collect(),
        ),
        Some((name, rest)) => {
            let start = pos - rest.len();
            let choices: &[&str] = match name {
                "/recover" => &["compact", "deep", "clear", "ignore", "retry"],
                "/history" => &["--active", "--full"],
                _ => &[],
            };
            let words = choices
                .iter()
                .filter(|c| c.starts_with(rest))
                .map(|c| c.to_string())
                .collect();
            (start, words)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_command_parses_and_nothing_else_does() {
        for spec in COMMANDS {
            let line = match spec.name {
                "/checkout" => "/checkout 3".to_string(),
                "/switch" => "/switch ab12".to_string(),
                "/search" => "/search zebra crossing".to_string(),
                "/rename" => "/rename a new title".to_string(),
                name => name.to_string(),
            };
            assert!(parse(&line).is_ok(), "{line}");
        }
        assert!(parse("/frobnicate").is_err());
        assert!(parse("/search").is_err());
        assert_eq!(
            parse("/search zebra  crossing"),
            Ok(Slash::Search("zebra crossing".into()))
        );
        assert!(parse("/undo now").is_err());
        assert!(parse("/rename").is_err());
        assert_eq!(
            parse("/rename  Two words"),
            Ok(Slash::Rename("Two words".into()))
        );
        assert_eq!(parse("/edit #4"), Ok(Slash::Edit(Some(4))));
        assert_eq!(
            parse("/recover deep"),
            Ok(Slash::Recover(Some(RecoveryAction::Deep)))
        );
        assert!(parse("/recover sideways").is_err());
        assert_eq!(
            parse("/recover compact"),
            Ok(Slash::Recover(Some(RecoveryAction::Compact)))
        );
        assert_eq!(
            parse("/history --active"),
            Ok(Slash::History {
                active: true,
                full: false
            })
        );
        assert_eq!(
            parse("/history --full --active"),
            Ok(Slash::History {
                active: true,
                full: true
            })
        );
    }

    #[test]
    fn compact_reads_the_rounds_kept_then_the_instructions() {
        let compact = |keep, instructions: Option<&str>| Slash::Compact {
            keep,
            instructions: instructions.map(str::to_string),
        };
        assert_eq!(parse("/compact"), Ok(compact(None, None)));
        assert_eq!(parse("/compact 4"), Ok(compact(Some(4), None)));
        assert_eq!(
            parse("/compact 0 keep  the API names"),
            Ok(compact(Some(0), Some("keep the API names")))
        );
        assert_eq!(
            parse("/compact keep the API names"),
            Ok(compact(None, Some("keep the API names")))
        );
    }

    #[test]
    fn completion_offers_commands_then_their_arguments() {
        assert_eq!(
            complete("/re", 3),
            (
                0,
                vec![
                    "/redo".into(),
                    "/retry".into(),
                    "/recover".into(),
                    "/rename".into(),
                    "/resume".into()
                ]
            )
        );
        assert_eq!(complete("/recover d", 10), (9, vec!["deep".into()]));
        assert_eq!(complete("hello", 5).1, Vec::<String>::new());
    }
}
