//! `omnictl recover [--deep|--clear|--ignore|--retry]`: choose how a session that needs
//! recovery goes on. Without a flag: a numbered menu at a terminal; otherwise the options,
//! and exit code 2.

use std::io::IsTerminal;

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
enum Pick {
    Action(RecoveryAction),
    Export,
    Nothing,
}

fn menu(reason: &str) -> Pick {
    eprintln!("{reason}\n{}", options_text());
    eprint!("choose 1-5 (anything else leaves the session as it is): ");
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return Pick::Nothing;
    }
    match answer.trim() {
        "5" => Pick::Export,
        n => n
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| RecoveryAction::ALL.get(i).copied())
            .map_or(Pick::Nothing, Pick::Action),
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
            match menu(&reason) {
                Pick::Action(action) => action,
                Pick::Export => {
                    let session = SessionArg {
                        session: Some(summary.id),
                    };
                    return logs::export(ctx, &session, None, None).await;
                }
                Pick::Nothing => {
                    eprintln!("omnictl: nothing changed; the session still needs recovery");
                    return Ok(());
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
