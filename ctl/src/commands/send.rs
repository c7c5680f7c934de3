//! `omnictl send TEXT | -`: send a prompt and stream the answer as it arrives.
//!
//! The answer's text goes to stdout as it streams; thoughts and function calls go to stderr
//! so that stdout is exactly the answer. With `--json`, every event is a JSON line and the
//! last line is the result.

use std::io::Read;

use omni_proto::{Event, PartContent, Reply, Request};

use super::{Ctx, unexpected};
use crate::cli::SessionArg;
use crate::error::CtlError;
use crate::output;
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
    let as_json = ctx.json;
    let err_style = Style::stderr();
    let mut at_line_start = true;
    let request = Request::Send {
        session: session.to_ref(),
        prompt,
    };
    let result = ctx
        .call(request, |event| {
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
                Event::PromptStored { .. } => {}
            }
        })
        .await;
    if !at_line_start {
        output::print("\n");
    }
    match result? {
        Reply::Answered(answer) => {
            if as_json {
                output::json(&answer);
            } else if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                let tokens = answer
                    .model
                    .usage
                    .map(|u| format!(" · {} tokens", u.total_tokens))
                    .unwrap_or_default();
                eprintln!(
                    "{}",
                    err_style.dim(&format!(
                        "[node {} · {:.1} s{tokens}]",
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
