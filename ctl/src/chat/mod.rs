//! `omnictl chat`: a whole conversation in one place. Lines come from the line editor at a
//! terminal or from stdin when piped (`input.rs`); a line is a prompt unless it starts
//! with `/` (`slash.rs`, carried out in `act.rs`). Answers stream as `send` shows them,
//! rendered as markdown on a colour terminal; Ctrl-C cancels an answer and stays here.

mod act;
mod editor;
mod entry;
mod input;
mod lookup;
mod menu;
mod recovery;
mod slash;
mod turns;
mod words;

use std::io::IsTerminal;

use omni_proto::{ErrorKind, PendingCall, SessionRef, SessionSummary, ShowSession};

use crate::commands::Ctx;
use crate::error::CtlError;
use crate::render::style::Style;
use entry::Line;
use input::Input;

/// How `omnictl chat` was asked to run.
pub struct Options {
    /// `-s ID`: continue this session.
    pub session: Option<String>,
    /// `--new`: start a new session.
    pub new: bool,
    /// `--model REF`: the model the session asks from now on.
    pub model: Option<String>,
    /// `--raw`: print answers as they are, no markdown.
    pub raw: bool,
    /// Long output may go through a pager (no `--no-pager`).
    pub pager: bool,
}

/// Whether the chat goes on after an entry.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Go,
    Quit,
}

/// The chat's state between entries.
struct Chat<'a> {
    ctx: &'a mut Ctx,
    /// The session's full id.
    session: String,
    /// A person types at a terminal (questions and menus make sense).
    person: bool,
    options: Options,
    /// Text to put in the editor for the next entry (`/edit`).
    initial: String,
    /// The next prompt forks from here (`/edit`): the head moves here first.
    fork_before: Option<u64>,
    /// Function calls of the model that wait for results, in order.
    calls: Vec<PendingCall>,
    err: Style,
}

/// Runs the chat until `/quit`, Ctrl-D or the end of the piped input. Piped, it stops at
/// the first failure and returns it (so the exit code is that failure's).
pub async fn run(ctx: &mut Ctx, options: Options) -> Result<(), CtlError> {
    if ctx.json {
        return Err(CtlError::usage(
            "chat speaks text to people and scripts; for JSON use the other commands (or \
             the HTTP API), which print one object per event",
        ));
    }
    let person = std::io::stdin().is_terminal();
    let mut input = if person {
        let lookup = lookup::Lookup::new(ctx.socket.clone(), String::new());
        let editor = editor::LineEditor::open(lookup)
            .map_err(|e| CtlError::failure(format!("cannot start the line editor: {e}")))?;
        Input::Editor(Box::new(Some(editor)))
    } else {
        Input::Piped(Box::new(std::io::BufReader::new(std::io::stdin())))
    };
    let summary = open_session(ctx, &options).await?;
    let mut chat = Chat {
        ctx,
        session: summary.id.clone(),
        person,
        options,
        initial: String::new(),
        fork_before: None,
        calls: Vec::new(),
        err: Style::stderr(),
    };
    if chat.greet(summary, &mut input).await? == Flow::Quit {
        return Ok(());
    }
    loop {
        input.follow(&chat.session);
        let label = chat.prompt_label();
        let initial = std::mem::take(&mut chat.initial);
        let result = match input.next(&label, &initial).await {
            Line::End => return Ok(()),
            Line::Empty => continue,
            Line::Interrupted => {
                chat.fork_before = None;
                chat.note("(Ctrl-D or /quit leaves the chat)");
                continue;
            }
            Line::Broken(error) => {
                return Err(CtlError::failure(format!("cannot read the input: {error}")));
            }
            Line::Command(line) => chat.command(&line, &mut input).await,
            Line::Text(text) => chat.text(text, &mut input).await,
        };
        match result {
            Ok(Flow::Go) => {}
            Ok(Flow::Quit) => return Ok(()),
            Err(error) if chat.person => chat.say_error(&error),
            Err(error) => return Err(error),
        }
    }
}

/// The session to chat in: `--new`, `-s ID`, else the current one (a new one if none).
async fn open_session(ctx: &mut Ctx, options: &Options) -> Result<SessionSummary, CtlError> {
    let opened = find_or_create(ctx, options).await?;
    match &options.model {
        Some(model) => {
            let session = SessionRef::Id(opened.id.clone());
            crate::commands::model::request(ctx, session, Some(model.clone())).await
        }
        None => Ok(opened),
    }
}

/// The session `-s` names, a new one (`--new`, or when there is no current one), or the
/// current one.
async fn find_or_create(ctx: &mut Ctx, options: &Options) -> Result<SessionSummary, CtlError> {
    if options.new {
        return new_session(ctx).await;
    }
    let session = match &options.session {
        Some(id) => SessionRef::Id(id.clone()),
        None => SessionRef::Current,
    };
    match summary(ctx, session).await {
        Err(error) if error.kind == Some(ErrorKind::NotFound) && options.session.is_none() => {
            new_session(ctx).await
        }
        other => other,
    }
}

/// Creates a session and returns its summary.
async fn new_session(ctx: &mut Ctx) -> Result<SessionSummary, CtlError> {
    let created = ctx.ask(crate::commands::new::plain()).await?;
    summary(ctx, SessionRef::Id(created.session)).await
}

/// One session's summary and state.
async fn summary(ctx: &mut Ctx, session: SessionRef) -> Result<SessionSummary, CtlError> {
    ctx.ask(ShowSession { session }).await
}

impl Chat<'_> {
    /// The session, as requests name it.
    fn id(&self) -> SessionRef {
        SessionRef::Id(self.session.clone())
    }

    /// A dim line on stderr: the chat talking about itself (wrapped at words, advice in
    /// the chat's own commands).
    fn note(&self, text: &str) {
        for line in words::for_stderr(&words::in_chat_terms(text)) {
            eprintln!("{}", self.err.dim(&line));
        }
    }

    /// An error on stderr, as [`Chat::note`] says things.
    fn say_error(&self, error: &CtlError) {
        self.say_error_text(&error.message);
    }

    fn say_error_text(&self, text: &str) {
        for line in words::for_stderr(&words::in_chat_terms(text)) {
            eprintln!("{}", self.err.error(&line));
        }
    }

    /// The editor's prompt: a function's name while its result is awaited.
    fn prompt_label(&self) -> String {
        match self.calls.first() {
            Some(call) => format!("{} result› ", call.name),
            None if self.fork_before.is_some() => "edit› ".to_string(),
            None => "› ".to_string(),
        }
    }

    /// Says which session this is and what state it is in; offers what it needs.
    async fn greet(
        &mut self,
        summary: SessionSummary,
        input: &mut Input,
    ) -> Result<Flow, CtlError> {
        let short: String = summary.id.chars().take(8).collect();
        let title = if summary.title.is_empty() {
            "new".to_string()
        } else {
            format!("“{}”", summary.title)
        };
        self.note(&format!(
            "session {short} ({title}) · {} turns · head #{} · {}",
            summary.nodes,
            summary.head,
            crate::render::context::gauge(&summary.context),
        ));
        if self.person {
            self.note("/help lists commands · Ctrl-D leaves");
        }
        if self.options.model.is_some() {
            self.note(&crate::commands::model::describe(&summary));
        }
        if let Some(warning) = &summary.context.warning {
            self.say_error_text(warning);
        }
        self.wait_for(&summary.pending_calls);
        if let Some(reason) = &summary.needs_recovery {
            self.say_error_text(&format!("this session needs recovery: {reason}"));
            if self.person {
                return self.recover(None).await;
            }
            self.note("choose with /recover compact|deep|clear|ignore|retry");
        }
        if summary.needs_recovery.is_none()
            && self.calls.is_empty()
            && let Some(pending) = self.pending_prompt().await?
        {
            self.note(&format!(
                "#{} has no answer yet: /retry sends it again as it is",
                pending.id
            ));
        }
        if summary.suspended {
            self.note(&format!(
                "this session is suspended after {} failed sends in a row",
                summary.consecutive_failures
            ));
            if self.person && self.ask_yes(input, "resume it now? [Y/n] ").await {
                return self.resume().await;
            }
            self.note("/resume lifts the suspension");
        }
        Ok(Flow::Go)
    }

    /// Asks a yes/no question (Enter is yes).
    async fn ask_yes(&mut self, input: &mut Input, question: &str) -> bool {
        match input.next(question, "").await {
            Line::Text(answer) => matches!(answer.trim().to_lowercase().as_str(), "y" | "yes"),
            Line::Empty => true,
            _ => false,
        }
    }

    /// Waits for the results of those `calls` not answered yet, and says so.
    fn wait_for(&mut self, calls: &[PendingCall]) {
        self.calls = calls.iter().filter(|c| !c.answered).cloned().collect();
        self.announce_calls();
    }

    /// Says which function calls wait for results and how to give them.
    fn announce_calls(&self) {
        if self.calls.is_empty() {
            return;
        }
        let count = self.calls.len();
        self.note(&format!(
            "the model called {count} function{} and waits: type each result as JSON (or /skip \
             to undo the calls)",
            if count == 1 { "" } else { "s" }
        ));
        for call in &self.calls {
            self.note(&format!("  → {}({})", call.name, call.args_json));
        }
    }
}
