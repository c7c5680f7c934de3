//! Showing a request that streams an answer (`send`, the last `tool-result`,
//! `recover --retry`): the answer (text and function calls) to stdout as it arrives;
//! thoughts and retry notices to stderr; with `--json`, one JSON line per event and the
//! result last.

use std::io::IsTerminal;
use std::time::Duration;

use omni_proto::{Answer, Event, PartContent, Reply, Request, RetryNotice};
use tokio::time::Instant;

use super::Ctx;
use crate::error::CtlError;
use crate::output;
use crate::render::spinner::Spinner;
use crate::render::{json, style::Style};

fn retry_line(notice: &RetryNotice) -> String {
    let wait = Duration::from_millis(notice.wait_ms).as_secs_f64();
    if notice.class == "circuit_open" {
        // Nothing was sent: the endpoint is failing fast until its next probe.
        return format!(
            "the model API is failing fast (circuit breaker open); the next probe goes out in \
             {wait:.1} s"
        );
    }
    let mut line = format!(
        "attempt {}/{} failed ({}): {}; retrying in {wait:.1} s",
        notice.attempt,
        notice.max_attempts,
        notice.class,
        notice.message.trim_end().trim_end_matches('.'),
    );
    if notice.discarded_partial {
        line.push_str(" (the partial answer above is discarded)");
    }
    line
}

/// Sends a request and renders its events as they arrive; returns the final reply. On a
/// terminal a spinner shows the time since the prompt was stored until the first token.
pub async fn streamed(ctx: &mut Ctx, request: Request) -> Result<Reply, CtlError> {
    let as_json = ctx.json;
    let err_style = Style::stderr();
    let mut at_line_start = true;
    let mut spinner = Spinner::default();
    let mut stored_at = Instant::now();
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
                    // A call is the model's answer, so it goes where the answer goes.
                    if let PartContent::FunctionCall {
                        name, args_json, ..
                    } = part.content
                    {
                        if !at_line_start {
                            output::print("\n");
                        }
                        output::line(&format!("→ {name}({args_json})"));
                        at_line_start = true;
                    }
                }
                Event::Retrying(notice) => {
                    if !at_line_start {
                        output::print("\n");
                        at_line_start = true;
                    }
                    eprintln!("omnictl: {}", err_style.dim(&retry_line(&notice)));
                    let wait = Duration::from_millis(notice.wait_ms);
                    spinner = Spinner::retrying(wait, stored_at);
                }
                Event::PromptStored { .. } => {
                    stored_at = Instant::now();
                    spinner = Spinner::waiting(stored_at);
                }
                Event::BundleData(_) => {}
            }
        })
        .await;
    spinner.stop();
    if !at_line_start {
        output::print("\n");
    }
    result
}

/// Finishes showing an answer: the result line with `--json`; otherwise a footer on a
/// terminal, and what to do about function calls that now wait for results.
pub fn finish_answer(ctx: &Ctx, answer: &Answer) {
    if ctx.json {
        output::json(answer);
        return;
    }
    let style = Style::stderr();
    if !answer.pending_calls.is_empty() {
        let count = answer.pending_calls.len();
        eprintln!(
            "the model called {count} function{} and waits for {}:",
            if count == 1 { "" } else { "s" },
            if count == 1 {
                "its result"
            } else {
                "their results"
            }
        );
        for call in &answer.pending_calls {
            let id = call
                .id
                .as_ref()
                .map(|id| format!(" (id {id})"))
                .unwrap_or_default();
            eprintln!("  {}{id} {}", call.name, call.args_json);
        }
        eprintln!("submit each with: omnictl tool-result NAME 'JSON'");
    }
    if std::io::stderr().is_terminal() {
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
            style.dim(&format!(
                "[node {} · {:.1} s{tokens}{attempts}]",
                answer.node,
                answer.model.latency_ms as f64 / 1000.0
            ))
        );
    }
}
