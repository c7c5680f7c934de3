//! `omnictl send TEXT | -`: send a prompt and stream the answer as it arrives.
//!
//! The answer's text goes to stdout as it streams; thoughts, function calls and retry
//! notices go to stderr so that stdout is exactly the answer. With `--json`, every event
//! is a JSON line and the last line is the result.

use std::io::{IsTerminal, Read};
use std::time::Duration;

use omni_proto::{ErrorKind, Event, PartContent, Reply, Request, RetryNotice, SessionRef};

use super::{Ctx, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;
use crate::render::spinner::Spinner;
use crate::render::{json, style::Style};

fn read_prompt(text: &[String]) -> Result<String, CtlError> {
    if text.len() == 1 && text[0] == "-" {
        let mut prompt = String::new();
        std::io::stdin()
            .read_to_string(&mut prompt)
            .map_err(|e| CtlError::usage(format!("cannot read the prompt from stdin: {e}")))?;
        return Ok(prompt);
    }
    Ok(text.join(" "))
}

pub async fn run(ctx: &mut Ctx, session: &SessionArg, text: &[String]) -> Result<(), CtlError> {
    let prompt = read_prompt(text)?;
    if prompt.trim().is_empty() {
        return Err(CtlError::usage("the prompt is empty; nothing was sent"));
    }
    match send(ctx, session.to_ref(), prompt.clone()).await {
        Err(error) if error.kind == Some(ErrorKind::NotFound) && interactive(ctx) => {
            if !ask_for_new_session(&error.message) {
                return Err(error);
            }
            let session = match ctx.ask(Request::NewSession).await? {
                Reply::SessionCreated { session } => session,
                other => return Err(unexpected(other)),
            };
            eprintln!("omnictl: created session {session}");
            send(ctx, SessionRef::Id(session), prompt).await
        }
        other => other,
    }
}

/// Asking questions only makes sense with a person at a terminal.
fn interactive(ctx: &Ctx) -> bool {
    !ctx.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// The one optional retry a user can ask for: a new session instead of a missing one.
fn ask_for_new_session(problem: &str) -> bool {
    eprint!("omnictl: {problem}\nstart a new session instead? [y/N] ");
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn retry_line(notice: &RetryNotice) -> String {
    let mut line = format!(
        "attempt {}/{} failed ({}): {}; retrying in {:.1} s",
        notice.attempt,
        notice.max_attempts,
        notice.class,
        notice.message,
        Duration::from_millis(notice.wait_ms).as_secs_f64()
    );
    if notice.discarded_partial {
        line.push_str(" (the partial answer above is discarded)");
    }
    line
}

async fn send(ctx: &mut Ctx, session: SessionRef, prompt: String) -> Result<(), CtlError> {
    let as_json = ctx.json;
    let err_style = Style::stderr();
    let mut at_line_start = true;
    let mut spinner = Spinner::default();
    let request = Request::Send { session, prompt };
    let result = ctx
        .call(request, |event| {
            spinner.stop();
            if as_json {
                output::json(&json::event(&event));
                return;
            }
            match event {
                Event::Text(text) => {
                    output::print(&text);
                    at_line_start = text.ends_with('\n');
                }
                Event::Thought(text) => eprint!("{}", err_style.dim(&text)),
                Event::FunctionCall(part) => {
                    if let PartContent::FunctionCall {
                        name, args_json, ..
                    } = part.content
                    {
                        eprintln!("{}", err_style.bold(&format!("→ {name}({args_json})")));
                    }
                }
                Event::Retrying(notice) => {
                    if !at_line_start {
                        output::print("\n");
                        at_line_start = true;
                    }
                    eprintln!("omnictl: {}", err_style.dim(&retry_line(&notice)));
                    spinner = Spinner::start("retrying", Duration::from_millis(notice.wait_ms));
                }
                Event::PromptStored { .. } => {}
            }
        })
        .await;
    spinner.stop();
    if !at_line_start {
        output::print("\n");
    }
    match result? {
        Reply::Answered(answer) => {
            if as_json {
                output::json(&answer);
            } else if std::io::stderr().is_terminal() {
                let tokens = answer
                    .model
                    .usage
                    .map(|u| format!(" · {} tokens", u.total_tokens))
                    .unwrap_or_default();
                let attempts = match answer.model.attempts {
                    0 | 1 => String::new(),
                    n => format!(" · {n} attempts"),
                };
                eprintln!(
                    "{}",
                    err_style.dim(&format!(
                        "[node {} · {:.1} s{tokens}{attempts}]",
                        answer.node,
                        answer.model.latency_ms as f64 / 1000.0
                    ))
                );
            }
            Ok(())
        }
        other => Err(unexpected(other)),
    }
}
