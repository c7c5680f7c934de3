//! `omnictl recover [--compact|--deep|--clear|--ignore|--retry]`: choose how a session
//! that needs recovery goes on. Without a flag: a numbered menu at a terminal; otherwise the options,
//! and exit code 2.

use std::io::{BufRead, IsTerminal, Write};

use omni_proto::{Recover, RecoverOutcome, RecoveryAction, ShowSession};

use super::stream::{finish_answer, streamed};
use super::{Ctx, logs};
use crate::error::CtlError;
use crate::output;
use crate::session_arg::SessionArg;

/// The flags given, in [`RecoveryAction::ALL`]'s order (compact, deep, clear, ignore,
/// retry), as an action.
pub fn chosen(flags: [bool; RecoveryAction::ALL.len()]) -> Option<RecoveryAction> {
    flags
        .into_iter()
        .zip(RecoveryAction::ALL)
        .find_map(|(given, action)| given.then_some(action))
}

/// The menu's number for writing the diagnostic bundle: after every way out.
const EXPORT: usize = RecoveryAction::ALL.len() + 1;

/// The flags in one line: `--compact | --deep | ...`.
fn flags() -> String {
    let flags: Vec<&str> = RecoveryAction::ALL.iter().map(|a| a.flag()).collect();
    flags.join(" | ")
}

/// The numbered choices; compact says what its summary would cover, when the daemon
/// said (`covers`).
fn options_text(covers: &[u64]) -> String {
    let mut text = String::new();
    for (i, action) in RecoveryAction::ALL.iter().enumerate() {
        let mut explanation = action.explanation().to_string();
        if *action == RecoveryAction::Compact && !covers.is_empty() {
            explanation.push_str(&format!(" ({})", crate::render::context::span(covers)));
        }
        text.push_str(&format!(
            "  {}) {:<9} {explanation}\n",
            i + 1,
            action.flag(),
        ));
    }
    text.push_str(&format!(
        "  {EXPORT}) logs export  write the diagnostic bundle (the state stays)\n"
    ));
    text
}

/// What the user picked from the menu.
#[derive(Debug, PartialEq, Eq)]
enum Pick {
    Action(RecoveryAction),
    Export,
    /// Enter, Esc or the end of input: leave the session as it is.
    Leave,
}

/// Reads one choice; anything that is not a choice is answered with a question again.
fn menu(input: &mut impl BufRead, prompt: &mut impl Write) -> Pick {
    loop {
        let _ = write!(
            prompt,
            "choose 1-{EXPORT} (Enter or Esc leaves the session as it is): "
        );
        let _ = prompt.flush();
        let mut answer = String::new();
        match input.read_line(&mut answer) {
            Ok(0) | Err(_) => return Pick::Leave,
            Ok(_) => {}
        }
        let answer = answer.trim();
        if answer.is_empty() || answer.contains('\x1b') {
            return Pick::Leave;
        }
        let picked = match answer.parse::<usize>() {
            Ok(EXPORT) => Some(Pick::Export),
            Ok(n) => n
                .checked_sub(1)
                .and_then(|i| RecoveryAction::ALL.get(i).copied())
                .map(Pick::Action),
            Err(_) => None,
        };
        match picked {
            Some(pick) => return pick,
            None => {
                let _ = writeln!(prompt, "'{answer}' is not one of 1-{EXPORT}");
            }
        }
    }
}

/// Asks which way out at the terminal (or, elsewhere, fails naming the options): the
/// action chosen, or `None` once the diagnostic bundle was written instead.
async fn ask(ctx: &mut Ctx, session: &SessionArg) -> Result<Option<RecoveryAction>, CtlError> {
    let summary = ctx
        .ask(ShowSession {
            session: session.to_ref(),
        })
        .await?;
    let Some(reason) = summary.needs_recovery else {
        return Err(CtlError::failure(format!(
            "session {} does not need recovery; nothing to do",
            summary.id
        )));
    };
    let reason = format!("session {} needs recovery: {reason}", summary.id);
    let covers = summary
        .recovery_choices
        .iter()
        .find(|p| p.action == RecoveryAction::Compact)
        .map(|p| p.covers.clone())
        .unwrap_or_default();
    let interactive =
        !ctx.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !interactive {
        return Err(CtlError::usage(format!(
            "{reason}\nchoose one: omnictl recover {}\n{}",
            flags(),
            options_text(&covers)
        )));
    }
    eprintln!("{reason}\n{}", options_text(&covers));
    match menu(&mut std::io::stdin().lock(), &mut std::io::stderr()) {
        Pick::Action(action) => Ok(Some(action)),
        Pick::Export => {
            let session = SessionArg {
                session: Some(summary.id),
            };
            logs::export(ctx, &session, None, None, false).await?;
            Ok(None)
        }
        Pick::Leave => Err(CtlError::failure(
            "nothing chosen: the session still needs recovery",
        )),
    }
}

async fn run(
    ctx: &mut Ctx,
    session: &SessionArg,
    action: Option<RecoveryAction>,
) -> Result<(), CtlError> {
    let action = match action {
        Some(action) => action,
        None => match ask(ctx, session).await? {
            Some(action) => action,
            None => return Ok(()),
        },
    };
    let request = Recover {
        session: session.to_ref(),
        action,
    };
    match streamed(ctx, request).await? {
        RecoverOutcome::Recovered(recovered) => {
            if ctx.json {
                output::json(&recovered);
            } else {
                output::line(&format!(
                    "recovered ({}): {}",
                    action.flag(),
                    action.explanation()
                ));
                output::line(&format!("head: {}", recovered.head_summary));
            }
            Ok(())
        }
        RecoverOutcome::Answered(answer) => {
            finish_answer(ctx, &answer);
            Ok(())
        }
    }
}

/// `omnictl recover`'s arguments.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("action").args(["compact", "deep", "clear", "ignore", "retry"])))]
pub struct Args {
    #[command(flatten)]
    pub session: SessionArg,
    /// Compact: summarise the older turns (they stay in the tree), then send again
    #[arg(long)]
    pub compact: bool,
    /// Deep rollback: drop the last prompt and its whole tool chain from the context
    #[arg(long)]
    pub deep: bool,
    /// Clear turn: drop only the last node from the context
    #[arg(long)]
    pub clear: bool,
    /// Keep the history as it is and clear the state
    #[arg(long)]
    pub ignore: bool,
    /// Send the same context again
    #[arg(long)]
    pub retry: bool,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        let action = chosen([self.compact, self.deep, self.clear, self.ignore, self.retry]);
        run(ctx, &self.session, action).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(typed: &str) -> (Pick, String) {
        let mut shown = Vec::new();
        let pick = menu(&mut typed.as_bytes(), &mut shown);
        (pick, String::from_utf8(shown).unwrap_or_default())
    }

    #[test]
    fn a_stray_key_asks_again() {
        let (choice, shown) = pick("x\n9\n3\n");
        assert_eq!(choice, Pick::Action(RecoveryAction::Clear));
        assert!(shown.contains("'x' is not one of 1-6"), "{shown}");
        assert!(shown.contains("'9' is not one of 1-6"), "{shown}");
    }

    #[test]
    fn compact_comes_first_and_says_what_it_would_cover() {
        assert_eq!(pick("1\n").0, Pick::Action(RecoveryAction::Compact));
        let text = options_text(&[1, 2, 3, 4]);
        let first = text.lines().next().unwrap_or_default();
        assert!(first.starts_with("  1) --compact"), "{text}");
        assert!(first.ends_with("(nodes 1–4)"), "{text}");
        assert!(
            text.ends_with("  6) logs export  write the diagnostic bundle (the state stays)\n")
        );
        assert_eq!(
            chosen([true, false, false, false, false]),
            Some(RecoveryAction::Compact)
        );
        assert_eq!(
            chosen([false, false, false, true, false]),
            Some(RecoveryAction::Ignore)
        );
        assert_eq!(chosen([false; 5]), None);
    }

    #[test]
    fn enter_esc_and_the_end_of_input_leave() {
        assert_eq!(pick("\n").0, Pick::Leave);
        assert_eq!(pick("\x1b\n").0, Pick::Leave);
        assert_eq!(pick("").0, Pick::Leave);
        assert_eq!(pick("6\n").0, Pick::Export);
    }
}
