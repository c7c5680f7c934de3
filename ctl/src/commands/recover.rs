//! `omnictl recover [--deep|--clear|--ignore|--retry]`: choose how a session that needs
//! recovery goes on. Without a flag: a numbered menu at a terminal; otherwise the options,
//! and exit code 2.

use std::io::{BufRead, IsTerminal, Write};

use omni_proto::{RecoveryAction, Reply, Request};

use super::stream::{finish_answer, streamed};
use super::{Ctx, logs, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;

/// The flags given, as an action.
pub fn chosen(deep: bool, clear: bool, ignore: bool, retry: bool) -> Option<RecoveryAction> {
    [
        (deep, RecoveryAction::Deep),
        (clear, RecoveryAction::Clear),
        (ignore, RecoveryAction::Ignore),
        (retry, RecoveryAction::Retry),
    ]
    .into_iter()
    .find_map(|(given, action)| given.then_some(action))
}

fn options_text() -> String {
    let mut text = String::new();
    for (i, action) in RecoveryAction::ALL.iter().enumerate() {
        text.push_str(&format!(
            "  {}) {:<9} {}\n",
            i + 1,
            action.flag(),
            action.explanation()
        ));
    }
    text.push_str("  5) logs export  write the diagnostic bundle (the state stays)\n");
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
            "choose 1-5 (Enter or Esc leaves the session as it is): "
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
        let picked = match answer {
            "5" => Some(Pick::Export),
            n => n
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| RecoveryAction::ALL.get(i).copied())
                .map(Pick::Action),
        };
        match picked {
            Some(pick) => return pick,
            None => {
                let _ = writeln!(prompt, "'{answer}' is not one of 1-5");
            }
        }
    }
}

pub async fn run(
    ctx: &mut Ctx,
    session: &SessionArg,
    action: Option<RecoveryAction>,
) -> Result<(), CtlError> {
    let action = match action {
        Some(action) => action,
        None => {
            let summary = match ctx
                .ask(Request::Session {
                    session: session.to_ref(),
                })
                .await?
            {
                Reply::Session(summary) => summary,
                other => return Err(unexpected(other)),
            };
            let Some(reason) = summary.needs_recovery else {
                return Err(CtlError::failure(format!(
                    "session {} does not need recovery; nothing to do",
                    summary.id
                )));
            };
            let reason = format!("session {} needs recovery: {reason}", summary.id);
            let interactive =
                !ctx.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
            if !interactive {
                return Err(CtlError::usage(format!(
                    "{reason}\nchoose one: omnictl recover --deep | --clear | --ignore | --retry\n{}",
                    options_text()
                )));
            }
            eprintln!("{reason}\n{}", options_text());
            match menu(&mut std::io::stdin().lock(), &mut std::io::stderr()) {
                Pick::Action(action) => action,
                Pick::Export => {
                    let session = SessionArg {
                        session: Some(summary.id),
                    };
                    return logs::export(ctx, &session, None, None, false).await;
                }
                Pick::Leave => {
                    return Err(CtlError::failure(
                        "nothing chosen: the session still needs recovery",
                    ));
                }
            }
        }
    };
    let request = Request::Recover {
        session: session.to_ref(),
        action,
    };
    match streamed(ctx, request).await? {
        Reply::Recovered(recovered) => {
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
        Reply::Answered(answer) => {
            finish_answer(ctx, &answer);
            Ok(())
        }
        other => Err(unexpected(other)),
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
        let (choice, shown) = pick("x\n9\n2\n");
        assert_eq!(choice, Pick::Action(RecoveryAction::Clear));
        assert!(shown.contains("'x' is not one of 1-5"), "{shown}");
        assert!(shown.contains("'9' is not one of 1-5"), "{shown}");
    }

    #[test]
    fn enter_esc_and_the_end_of_input_leave() {
        assert_eq!(pick("\n").0, Pick::Leave);
        assert_eq!(pick("\x1b\n").0, Pick::Leave);
        assert_eq!(pick("").0, Pick::Leave);
        assert_eq!(pick("5\n").0, Pick::Export);
    }
}
