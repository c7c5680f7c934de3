//! Showing a request that streams an answer (`send`, the last `tool-result`,
//! `recover --retry`): events are shown as they arrive (`render/live.rs`), the result
//! last; Ctrl-C cancels the answer.

use std::cell::RefCell;
use std::io::IsTerminal;

use omni_proto::{
    Answer, Call, Cancel, Compact, ErrorKind, Event, Recover, Retry, SendPrompt, SessionRef,
    ToolResult,
};

use super::Ctx;
use crate::error::{CtlError, exit};
use crate::render::live::Live;
use crate::render::style::Style;

/// A request whose answer streams: the session it is about, for Ctrl-C to cancel (a new
/// session's id arrives with its first event).
pub trait Streams: Call {
    /// The session it names.
    fn session(&self) -> &SessionRef;
}

macro_rules! streams {
    ($($request:ty),*) => {$(
        impl Streams for $request {
            fn session(&self) -> &SessionRef {
                &self.session
            }
        }
    )*};
}

streams!(SendPrompt, ToolResult, Recover, Retry, Compact);

/// Sends a request and renders its events as they arrive; returns the final reply. On a
/// terminal a spinner shows the time since the prompt was stored until the first token.
///
/// Ctrl-C cancels the answer (on a second connection) and waits for the daemon to say
/// what it kept; the command then exits 130. A second Ctrl-C leaves at once.
pub async fn streamed<S: Streams>(ctx: &mut Ctx, request: S) -> Result<S::Reply, CtlError> {
    let live = Live::new(ctx.json, false);
    streamed_with(ctx, request, live).await
}

/// [`streamed`], shown by the given renderer.
pub async fn streamed_with<S: Streams>(
    ctx: &mut Ctx,
    request: S,
    live: Live,
) -> Result<S::Reply, CtlError> {
    let live = RefCell::new(live);
    let session = RefCell::new(request.session().clone());
    let (socket, no_wait) = (ctx.socket.clone(), ctx.no_wait);
    let call = ctx.call(request, |event| {
        if let Event::PromptStored { session: id, .. } = &event {
            *session.borrow_mut() = SessionRef::Id(id.clone());
        }
        live.borrow_mut().show(event);
    });
    tokio::pin!(call);
    let result = tokio::select! {
        result = &mut call => result,
        _ = tokio::signal::ctrl_c() => {
            live.borrow_mut().end_line();
            let target = session.borrow().clone();
            cancel_after_ctrl_c(&socket, no_wait, target).await;
            tokio::select! {
                result = &mut call => result,
                _ = tokio::signal::ctrl_c() => Err(CtlError {
                    code: exit::INTERRUPTED,
                    kind: None,
                    message: "interrupted; the daemon finishes the request on its own".into(),
                }),
            }
        }
    };
    live.borrow_mut().end_line();
    result.map_err(|error| match error.kind {
        Some(ErrorKind::Cancelled) => CtlError {
            code: exit::INTERRUPTED,
            ..error
        },
        _ => error,
    })
}

/// Asks the daemon, on a connection of its own, to cancel the session's answer. Its reply
/// matters less than the streaming request's, which says what was kept.
async fn cancel_after_ctrl_c(socket: &std::path::Path, no_wait: bool, session: SessionRef) {
    eprintln!("omnictl: cancelling the answer (Ctrl-C again to leave at once)");
    let mut canceller = super::Ctx::new(socket.to_path_buf(), false, no_wait);
    if let Err(error) = canceller.ask(Cancel { session }).await {
        eprintln!("omnictl: could not cancel: {}", error.message);
    }
}

/// Finishes showing an answer: the result line with `--json`; otherwise a footer on a
/// terminal, and what to do about function calls that now wait for results.
pub fn finish_answer(ctx: &Ctx, answer: &Answer) {
    if ctx.json {
        crate::output::json(answer);
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
        eprintln!("{}", style.dim(&footer(answer)));
    }
    if let Some(warning) = &answer.context.warning {
        eprintln!("{}", style.error(&format!("omnictl: {warning}")));
    }
}

/// One line on how an answer was made: its node, the model that gave it, time, tokens,
/// attempts, how full the context is now and the session's usage.
pub fn footer(answer: &Answer) -> String {
    let tokens = answer
        .model
        .usage
        .map(|u| format!(" · {} tokens", u.total_tokens))
        .unwrap_or_default();
    let attempts = match answer.model.attempts {
        0 | 1 => String::new(),
        n => format!(" · {n} attempts"),
    };
    format!(
        "[node {} · {} · {:.1} s{tokens}{attempts} · {} · session {}]",
        answer.node,
        crate::render::model_ref(&answer.model),
        answer.model.latency_ms as f64 / 1000.0,
        crate::render::context::gauge(&answer.context),
        crate::render::usage::line(&answer.session_usage)
    )
}

#[cfg(test)]
mod tests {
    use omni_proto::{ContextGauge, ModelInfo, UsageTotals};

    use super::*;

    #[test]
    fn the_footer_says_how_full_the_context_is() {
        let mut answer = Answer {
            session: "s".into(),
            prompt_node: 5,
            prompts: vec![5],
            node: 6,
            text: "hi".into(),
            model: ModelInfo {
                model: "flash".into(),
                model_version: None,
                finish_reason: None,
                usage: None,
                attempts: 1,
                latency_ms: 1200,
                interrupted: false,
                provider: "gemini".into(),
            },
            pending_calls: Vec::new(),
            session_usage: UsageTotals::default(),
            context: ContextGauge {
                tokens: 640_000,
                estimated: 0,
                model: "gemini/flash".into(),
                window: Some(1_048_576),
                window_source: None,
                percent: Some(61),
                warning: None,
            },
        };
        assert_eq!(
            footer(&answer),
            "[node 6 · gemini/flash · 1.2 s · context 61% of 1,048,576 · session 0 in · 0 out]"
        );
        answer.context.window = None;
        answer.context.percent = None;
        answer.context.estimated = 12;
        assert!(
            footer(&answer).contains(" · context ~640,000 tokens (window unknown) · "),
            "{}",
            footer(&answer)
        );
    }
}
