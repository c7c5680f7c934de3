//! Turns in the chat: prompts (with `/edit`'s fork and the keep-or-replace question after
//! a failure), answers as they stream, function results, and the recovery menu.

use omni_proto::{
    Answer, Entry, ErrorKind, History, MoveOp, Recover, RecoverOutcome, Recovered, RecoveryAction,
    Retry, Role, SendPrompt, SessionRef, ToolResult, ToolResultOutcome, ToolResultStored,
};

use super::input::{Input, Line};
use super::menu::{self, Choice};
use super::{Chat, Flow, summary};
use crate::commands::stream::{Streams, footer, streamed_with};
use crate::commands::{logs, moves};
use crate::error::CtlError;
use crate::render::live::Live;
use crate::render::markdown::Markdown;
use crate::session_arg::SessionArg;

/// What to do with a prompt left pending by a failed send.
enum Pending {
    Keep,
    Replace,
    Cancel,
}

/// "#1, #2": the entries' node numbers.
fn node_list(entries: &[Entry]) -> String {
    let ids: Vec<String> = entries.iter().map(|e| format!("#{}", e.id)).collect();
    ids.join(", ")
}

/// `one` for a single entry, `many` for several.
fn verb<'a>(entries: &[Entry], one: &'a str, many: &'a str) -> &'a str {
    if entries.len() == 1 { one } else { many }
}

/// How a turn the chat streams ended, whichever request it was.
pub(super) enum Ended {
    /// An answer was stored.
    Answered(Box<Answer>),
    /// A function result was stored; other calls still wait.
    Stored(ToolResultStored),
    /// A recovery moved the head.
    Recovered(Recovered),
}

impl From<Answer> for Ended {
    fn from(answer: Answer) -> Self {
        Self::Answered(Box::new(answer))
    }
}

impl From<ToolResultOutcome> for Ended {
    fn from(outcome: ToolResultOutcome) -> Self {
        match outcome {
            ToolResultOutcome::Stored(stored) => Self::Stored(stored),
            ToolResultOutcome::Answered(answer) => Self::Answered(answer),
        }
    }
}

impl From<RecoverOutcome> for Ended {
    fn from(outcome: RecoverOutcome) -> Self {
        match outcome {
            RecoverOutcome::Recovered(recovered) => Self::Recovered(recovered),
            RecoverOutcome::Answered(answer) => Self::Answered(answer),
        }
    }
}

impl Chat<'_> {
    /// A line of text: a prompt, or the result a function call waits for.
    pub(super) async fn text(&mut self, text: String, input: &mut Input) -> Result<Flow, CtlError> {
        if let Some(call) = self.calls.first().cloned() {
            let request = ToolResult {
                session: self.id(),
                call_id: call.id,
                name: call.name,
                response_json: text,
            };
            return self.answer(request, false).await;
        }
        let mut replace = false;
        if let Some(node) = self.fork_before.take() {
            let moved = moves::request(self.ctx, self.id(), MoveOp::Checkout { node }).await?;
            self.note(&format!("forking from #{node}: {}", moved.head_summary));
        } else if self.person
            && let pending = self.pending_prompts().await?
            && !pending.is_empty()
        {
            let failed = summary(self.ctx, self.id()).await?.needs_recovery.is_some();
            match self.keep_or_replace(input, &pending, failed).await {
                Pending::Keep => {}
                Pending::Replace => {
                    replace = true;
                    let (ids, stay) = (node_list(&pending), verb(&pending, "stays", "stay"));
                    self.note(&format!(
                        "sent in place of {ids}, which {stay} in the tree, off the path"
                    ));
                }
                Pending::Cancel => return Ok(Flow::Go),
            }
        }
        // The daemon stores the prompt (in place of the pending one, if asked) before
        // anything else happens to the session: one request, one commit.
        let request = SendPrompt {
            session: self.id(),
            prompt: text,
            replace,
        };
        self.answer(request, false).await
    }

    /// The user prompt at the head, if it waits for an answer (a failed or cancelled send).
    pub(super) async fn pending_prompt(&mut self) -> Result<Option<Entry>, CtlError> {
        Ok(self.pending_prompts().await?.pop())
    }

    /// The prompts at the head that wait for an answer, oldest first: a failed or
    /// cancelled send's, and any kept with it since.
    async fn pending_prompts(&mut self) -> Result<Vec<Entry>, CtlError> {
        let request = History {
            session: self.id(),
            active_only: true,
        };
        let view = self.ctx.ask(request).await?;
        let mut pending: Vec<Entry> = view
            .entries
            .into_iter()
            .rev()
            .take_while(|e| e.role == Role::User)
            .collect();
        pending.reverse();
        Ok(pending)
    }

    /// Asks what becomes of the pending prompt. When the session needs recovery because
    /// of it (`failed`), keeping it cannot help: the choice is to replace it or not send.
    async fn keep_or_replace(
        &mut self,
        input: &mut Input,
        pending: &[Entry],
        failed: bool,
    ) -> Pending {
        let last = pending.last().map(|e| e.text.as_str()).unwrap_or_default();
        let first = last.lines().next().unwrap_or_default();
        let (state, question, default) = if failed {
            (
                verb(
                    pending,
                    "failed and needs recovery",
                    "failed and need recovery",
                ),
                "send this prompt in its place (r), or cancel (c)? [r] ",
                Pending::Replace,
            )
        } else {
            (
                verb(
                    pending,
                    "is still pending (unanswered)",
                    "are still pending (unanswered)",
                ),
                "keep it and send both, merged (k), replace it (r), or cancel (c)? [k] ",
                Pending::Keep,
            )
        };
        self.note(&format!("{} {state}: {first}", node_list(pending)));
        loop {
            match input.next(question, "").await {
                Line::Empty => return default,
                Line::Text(answer) => match answer.trim().to_lowercase().as_str() {
                    "k" | "keep" if !failed => return Pending::Keep,
                    "r" | "replace" => return Pending::Replace,
                    "c" | "cancel" => return Pending::Cancel,
                    _ if failed => self.note("answer r or c"),
                    _ => self.note("answer k, r or c"),
                },
                // A command is not an answer: say so and ask again (cancel first to use it).
                Line::Command(command) => {
                    let answers = if failed { "r or c" } else { "k, r or c" };
                    self.note(&format!(
                        "{} is a command, not an answer: answer {answers} (c cancels this \
                         prompt; then {} works as usual)",
                        command.trim(),
                        command.split_whitespace().next().unwrap_or("/help")
                    ));
                }
                _ => return Pending::Cancel,
            }
        }
    }

    /// Streams the answer to a request and shows how it ended. `waiting`: the request
    /// stores no prompt first, so the spinner starts at once.
    pub(super) async fn answer<S: Streams>(
        &mut self,
        request: S,
        waiting: bool,
    ) -> Result<Flow, CtlError>
    where
        S::Reply: Into<Ended>,
    {
        let mut live = Live::new(false, false);
        if waiting {
            live = live.waiting();
        }
        if let Some(width) = self.markdown_width() {
            live = live.with_markdown(Markdown::new(width));
        }
        match streamed_with(self.ctx, request, live).await.map(Into::into) {
            Ok(Ended::Answered(answer)) => {
                self.answered(&answer);
                Ok(Flow::Go)
            }
            Ok(Ended::Stored(stored)) => {
                self.wait_for(&stored.calls);
                Ok(Flow::Go)
            }
            Ok(Ended::Recovered(recovered)) => {
                self.note(&format!("recovered · head: {}", recovered.head_summary));
                Ok(Flow::Go)
            }
            Err(error) => self.failed(error).await,
        }
    }

    /// Markdown on a colour terminal unless `--raw`: the terminal's width.
    fn markdown_width(&self) -> Option<usize> {
        let colour = crate::render::style::Style::stdout().is_colour();
        if self.options.raw || !colour {
            return None;
        }
        crossterm::terminal::size()
            .ok()
            .map(|(cols, _)| cols as usize)
    }

    fn answered(&mut self, answer: &Answer) {
        self.note(&footer(answer));
        if let Some(warning) = &answer.context.warning {
            self.say_error_text(warning);
        }
        self.wait_for(&answer.pending_calls);
    }

    /// After a failed request: the recovery menu when one is needed (at a terminal), and
    /// what became of the prompt. Piped, the failure ends the chat.
    async fn failed(&mut self, error: CtlError) -> Result<Flow, CtlError> {
        let hint = match error.kind {
            Some(ErrorKind::NeedsRecovery) if self.person => {
                // The first line is the reason; the rest is advice for the command line,
                // which the menu replaces here.
                let reason = error.message.lines().next().unwrap_or_default();
                self.say_error_text(reason);
                return Box::pin(self.recover_menu()).await;
            }
            Some(ErrorKind::Cancelled) => {
                // The daemon's first sentence says what was kept; the rest is advice for
                // the command line, said here in the chat's terms.
                let kept = error.message.split(". ").next().unwrap_or_default();
                let error = CtlError {
                    message: kept.to_string(),
                    ..error
                };
                let hint = "the prompt stays pending (/retry asks again, /back drops it)";
                if !self.person {
                    self.note(hint);
                    return Err(error);
                }
                // One line: what was kept, then what the prompt does.
                self.note(&format!("{}; {hint}", error.message));
                return Ok(Flow::Go);
            }
            Some(ErrorKind::Suspended) => Some("/resume lifts the suspension".to_string()),
            Some(ErrorKind::UpstreamFailure | ErrorKind::Internal | ErrorKind::Storage) => {
                match self.pending_prompt().await {
                    Ok(Some(pending)) => Some(format!(
                        "#{} stays pending: /retry sends it again as it is",
                        pending.id
                    )),
                    _ => None,
                }
            }
            _ => None,
        };
        if !self.person {
            if let Some(hint) = hint {
                self.note(&hint);
            }
            return Err(error);
        }
        self.say_error(&error);
        if let Some(hint) = hint {
            self.note(&hint);
        }
        Ok(Flow::Go)
    }

    /// `/recover [CHOICE]`: without a choice, the menu at a terminal.
    pub(super) async fn recover(
        &mut self,
        action: Option<RecoveryAction>,
    ) -> Result<Flow, CtlError> {
        match action {
            Some(action) => self.apply_recovery(action).await,
            None if self.person => self.recover_menu().await,
            None => Err(CtlError::usage(
                "choose one: /recover compact | deep | clear | ignore | retry",
            )),
        }
    }

    async fn apply_recovery(&mut self, action: RecoveryAction) -> Result<Flow, CtlError> {
        let request = Recover {
            session: self.id(),
            action,
        };
        // Retry and compact store no prompt first: the wait starts at once.
        let waiting = matches!(action, RecoveryAction::Retry | RecoveryAction::Compact);
        self.answer(request, waiting).await
    }

    /// The recovery menu: each choice says which nodes it takes out of the context.
    async fn recover_menu(&mut self) -> Result<Flow, CtlError> {
        let state = summary(self.ctx, self.id()).await?;
        if state.needs_recovery.is_none() {
            self.note("this session does not need recovery; nothing to do");
            return Ok(Flow::Go);
        }
        let rows = super::recovery::rows(&state.recovery_choices);
        let mut choices: Vec<Choice> = Vec::with_capacity(rows.len() + 1);
        let mut actions = Vec::with_capacity(rows.len());
        for row in rows {
            choices.push(row.choice);
            actions.push(row.action);
        }
        choices.push(Choice {
            label: "export".to_string(),
            detail: "(writes the diagnostic bundle; the state stays)".to_string(),
        });
        let picked = menu::pick(&choices)
            .map_err(|e| CtlError::failure(format!("cannot show the menu: {e}")))?;
        match picked {
            Some(i) if i < actions.len() => self.apply_recovery(actions[i]).await,
            Some(_) => {
                let session = SessionArg {
                    session: Some(self.session.clone()),
                };
                logs::export(self.ctx, &session, None, None, false).await?;
                Ok(Flow::Go)
            }
            None => {
                self.note("left as it is: the session still needs recovery (/recover to choose)");
                Ok(Flow::Go)
            }
        }
    }

    /// `/retry`: the pending turn answered again, as it is (or recovery's retry).
    pub(super) async fn retry(&mut self) -> Result<Flow, CtlError> {
        let request = Retry {
            session: SessionRef::Id(self.session.clone()),
        };
        self.answer(request, true).await
    }
}
