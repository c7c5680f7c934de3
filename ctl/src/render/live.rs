//! Showing a session's events as they arrive, for `send` (and the requests that stream an
//! answer) and for `attach`: the answer (text and function calls) to stdout, thoughts,
//! retry notices and changes to stderr; with `--json`, one JSON line per event.

use std::time::Duration;

use omni_proto::{Event, PartContent, RetryNotice};
use tokio::time::Instant;

use super::markdown::Markdown;
use super::spinner::Spinner;
use super::style::Style;
use super::width;
use crate::output;

fn retry_line(notice: &RetryNotice) -> String {
    let wait = Duration::from_millis(notice.wait_ms).as_secs_f64();
    let mut line = if notice.fallback_to.is_some() {
        // The message names the model that failed and the one asked instead.
        notice.message.trim_end().to_string()
    } else if notice.class == "circuit_open" {
        // Nothing was sent: the endpoint is failing fast until its next probe.
        format!(
            "the model API is failing fast (circuit breaker open); the next probe goes out in \
             {wait:.1} s"
        )
    } else {
        format!(
            "attempt {}/{} failed ({}): {}; retrying in {wait:.1} s",
            notice.attempt,
            notice.max_attempts,
            notice.class,
            notice.message.trim_end().trim_end_matches('.'),
        )
    };
    if notice.discarded_partial {
        line.push_str(" (the partial answer above is discarded)");
    }
    line
}

/// Which prompts go out together when a pending one was kept.
pub fn merged_line(prompts: &[u64]) -> String {
    let nodes: Vec<String> = prompts.iter().map(|n| format!("#{n}")).collect();
    format!(
        "sending {} together: a pending prompt was kept (`send --replace` sends only the new one)",
        nodes.join(", ")
    )
}

/// What an event says about the session as a whole, for a follower (`attach`).
fn change_line(event: &Event) -> Option<String> {
    Some(match event {
        Event::Attached(summary) => format!(
            "following session {} (head at node {}); Ctrl-C stops following",
            summary.id, summary.head
        ),
        Event::PromptStored { node, .. } => format!("a turn was stored as node {node}"),
        Event::Answered(answer) => format!("answer stored as node {}", answer.node),
        Event::Failed(error) => format!("the turn was not answered: {}", error.message),
        Event::Moved(moved) => format!("head moved to {}", moved.head_summary),
        Event::Recovered(recovered) => format!("recovered: head at {}", recovered.head_summary),
        Event::Resumed { .. } => "the session was resumed".to_string(),
        Event::Changed { .. } => "the session's title, model or archive state changed".to_string(),
        Event::ToolResultStored { calls, .. } => format!(
            "a function result was stored ({} of {} calls answered)",
            calls.iter().filter(|c| c.answered).count(),
            calls.len()
        ),
        Event::Missed { events } => format!("missed {events} events (fell behind)"),
        Event::Compacted(compacted) => {
            let back = format!("omnictl checkout {}", compacted.from);
            super::context::compacted(compacted, &back)
        }
        _ => return None,
    })
}

/// Shows events one by one, keeping track of the line the answer is on and the spinner.
pub struct Live {
    json: bool,
    /// Show the session-wide changes (`attach`), not only the answer.
    follower: bool,
    err_style: Style,
    at_line_start: bool,
    spinner: Spinner,
    stored_at: Instant,
    /// Render the answer's text as markdown (the chat on a colour terminal).
    markdown: Option<Markdown>,
    /// A thought's line is open on stderr: the answer starts on a line of its own.
    in_thought: bool,
}

impl Live {
    /// A renderer for a request's own answer (`follower` false) or for `attach`.
    pub fn new(json: bool, follower: bool) -> Self {
        Self {
            json,
            follower,
            err_style: Style::stderr(),
            at_line_start: true,
            spinner: Spinner::default(),
            stored_at: Instant::now(),
            markdown: None,
            in_thought: false,
        }
    }

    /// Renders the answer's text as markdown.
    pub fn with_markdown(mut self, markdown: Markdown) -> Self {
        self.markdown = Some(markdown);
        self
    }

    /// Starts the spinner now, for a request that stores no prompt first (a retry).
    pub fn waiting(mut self) -> Self {
        self.spinner = Spinner::waiting(self.stored_at);
        self
    }

    /// Shows one event.
    pub fn show(&mut self, event: Event) {
        self.spinner.stop();
        if self.json {
            output::json(&omni_proto::json::event(&event));
            return;
        }
        if self.follower
            && let Some(line) = change_line(&event)
        {
            self.end_line();
            self.note(&line);
        }
        match event {
            Event::Text(text) => {
                self.end_thought();
                match &mut self.markdown {
                    Some(markdown) => output::print(&markdown.push(&text)),
                    None => output::print(&text),
                }
                self.at_line_start = text.ends_with('\n');
            }
            Event::Thought(text) => {
                // Rendered as markdown where the answer is: its `**` marks go.
                let text = match self.markdown {
                    Some(_) => text.replace("**", ""),
                    None => text,
                };
                eprint!("{}", self.err_style.dim(&text));
                self.in_thought = !text.ends_with('\n');
            }
            Event::FunctionCall(part) => {
                // A call is the model's answer, so it goes where the answer goes.
                if let PartContent::FunctionCall {
                    name, args_json, ..
                } = part.content
                {
                    self.end_line();
                    output::line(&format!("→ {name}({args_json})"));
                }
            }
            Event::Retrying(notice) => {
                self.end_line();
                self.note(&retry_line(&notice));
                let wait = Duration::from_millis(notice.wait_ms);
                self.spinner = Spinner::retrying(wait, self.stored_at);
            }
            Event::PromptStored { .. } => {
                self.stored_at = Instant::now();
                self.spinner = Spinner::waiting(self.stored_at);
            }
            Event::Compacting(compacting) => {
                self.end_line();
                self.note(&super::context::compacting(&compacting));
                self.spinner = Spinner::waiting(Instant::now());
            }
            Event::Compacted(compacted) if !self.follower => {
                // A send that compacted first: say so before its answer streams. Its answer
                // will be the head, so `undo` no longer returns there; a checkout does.
                let back = format!("checkout {}", compacted.from);
                self.note(&super::context::compacted(&compacted, &back));
                self.spinner = Spinner::waiting(self.stored_at);
            }
            Event::PromptsMerged { prompts, .. } => {
                self.note(&merged_line(&prompts));
                self.spinner = Spinner::waiting(self.stored_at);
            }
            _ => {}
        }
    }

    /// A dim line on stderr about the answer, wrapped at words to the terminal's width
    /// (a terminal would break it mid-word).
    fn note(&self, text: &str) {
        let text = format!("omnictl: {text}");
        let lines = match width::stderr_columns() {
            Some(columns) => width::wrap_words(&text, columns),
            None => vec![text],
        };
        for line in lines {
            eprintln!("{}", self.err_style.dim(&line));
        }
    }

    /// Ends a thought's open line, so what follows starts at the line's start.
    fn end_thought(&mut self) {
        if std::mem::take(&mut self.in_thought) {
            eprintln!();
        }
    }

    /// Ends the answer's line if it is open, and stops the spinner.
    pub fn end_line(&mut self) {
        self.end_thought();
        self.spinner.stop();
        if let Some(markdown) = &mut self.markdown {
            let rest = markdown.finish();
            output::print(&rest);
            if !rest.is_empty() {
                self.at_line_start = true;
            }
        }
        if !self.at_line_start {
            output::print("\n");
            self.at_line_start = true;
        }
    }
}
