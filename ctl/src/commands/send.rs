//! `omnictl send TEXT | -`: send a prompt and stream the answer as it arrives (see
//! `stream.rs` for how it is shown).

use std::io::{IsTerminal, Read};

use omni_proto::{Answer, ErrorKind, Retry, SendPrompt, SessionRef};

use super::Ctx;
use super::stream::{Streams, finish_answer, streamed};
use crate::error::CtlError;
use crate::session_arg::SessionArg;

fn read_prompt(text: &[String]) -> Result<String, CtlError> {
    if text.len() == 1 && text[0] == "-" {
        if std::io::stdin().is_terminal() {
            eprintln!("omnictl: type the prompt, end with Ctrl-D on a line of its own");
        }
        let mut prompt = String::new();
        std::io::stdin()
            .read_to_string(&mut prompt)
            .map_err(|e| CtlError::usage(format!("cannot read the prompt from stdin: {e}")))?;
        return Ok(prompt);
    }
    Ok(text.join(" "))
}

/// `omnictl send [--replace] TEXT | -`.
async fn run(
    ctx: &mut Ctx,
    session: &SessionArg,
    text: &[String],
    replace: bool,
) -> Result<(), CtlError> {
    let prompt = read_prompt(text)?;
    if prompt.trim().is_empty() {
        return Err(CtlError::usage("the prompt is empty; nothing was sent"));
    }
    match send(ctx, session.to_ref(), prompt.clone(), replace).await {
        Err(error) if error.kind == Some(ErrorKind::NotFound) && interactive(ctx) => {
            if !ask_for_new_session(&error.message) {
                return Err(error);
            }
            let session = ctx.ask(super::new::plain()).await?.session;
            eprintln!("omnictl: created session {session}");
            send(ctx, SessionRef::Id(session), prompt, replace).await
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

/// `omnictl retry`: answers the prompt a failed send left pending again, as it is.
async fn retry(ctx: &mut Ctx, session: &SessionArg) -> Result<(), CtlError> {
    answer(
        ctx,
        Retry {
            session: session.to_ref(),
        },
    )
    .await
}

async fn send(
    ctx: &mut Ctx,
    session: SessionRef,
    prompt: String,
    replace: bool,
) -> Result<(), CtlError> {
    let request = SendPrompt {
        session,
        prompt,
        replace,
    };
    answer(ctx, request).await
}

/// Streams the answer to a send or a retry and finishes it.
async fn answer<S: Streams<Reply = Answer>>(ctx: &mut Ctx, request: S) -> Result<(), CtlError> {
    let answer = streamed(ctx, request).await?;
    finish_answer(ctx, &answer);
    Ok(())
}

/// `omnictl send`'s arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub session: SessionArg,
    /// The prompt (several words are joined with spaces), or "-" for stdin
    #[arg(required = true, value_name = "TEXT")]
    pub text: Vec<String>,
    /// Send it in place of a prompt a failed or cancelled send left pending (that one
    /// stays in the tree, off the path); without it, both are sent
    #[arg(long)]
    pub replace: bool,
}

impl super::Run for Args {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        run(ctx, &self.session, &self.text, self.replace).await
    }
}

/// `omnictl retry`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RetryArgs {
    #[command(flatten)]
    pub session: SessionArg,
}

impl super::Run for RetryArgs {
    async fn run(self, ctx: &mut Ctx) -> Result<(), CtlError> {
        retry(ctx, &self.session).await
    }
}
