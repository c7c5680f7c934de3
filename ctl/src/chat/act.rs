//! Carrying out the chat's slash commands. Each move ends by showing the new head in one
//! line; listings reuse what the separate commands print.

use omni_proto::{Branches, History, MoveOp, Role};

use super::input::Input;
use super::slash::{self, Slash};
use super::{Chat, Flow, new_session, summary};
use crate::commands::{
    branches, compact, keep, logs, model, moves, resume, search, sessions, status,
};
use crate::error::CtlError;
use crate::output;
use crate::render::style::Style;
use crate::render::transcript::{self, Detail};
use crate::render::{pager, tree, width};
use crate::session_arg::SessionArg;

impl Chat<'_> {
    /// Carries out a line that starts with `/`.
    pub(super) async fn command(
        &mut self,
        line: &str,
        input: &mut Input,
    ) -> Result<Flow, CtlError> {
        let slash = slash::parse(line).map_err(CtlError::usage)?;
        if !self.calls.is_empty() && !matches!(slash, Slash::Skip | Slash::Help | Slash::Quit) {
            return Err(CtlError::usage(
                "function calls wait for results: type the JSON result, or /skip",
            ));
        }
        match slash {
            Slash::Undo => self.head_move(MoveOp::Undo, "undo").await,
            Slash::Redo => self.head_move(MoveOp::Redo, "redo").await,
            Slash::Back => self.head_move(MoveOp::Back, "back").await,
            Slash::Checkout(node) => self.head_move(MoveOp::Checkout { node }, "checkout").await,
            Slash::Skip => self.skip().await,
            Slash::Edit(node) => self.edit(node).await,
            Slash::Retry => self.retry().await,
            Slash::Compact { keep, instructions } => self.compact(keep, instructions).await,
            Slash::Recover(action) => self.recover(action).await,
            Slash::Branches => self.branches().await,
            Slash::History { active, full } => self.history(active, full).await,
            Slash::Tree => self.tree().await,
            Slash::Export(file) => {
                let session = SessionArg {
                    session: Some(self.session.clone()),
                };
                logs::export(self.ctx, &session, None, file.as_deref(), false).await?;
                Ok(Flow::Go)
            }
            Slash::Search(words) => self.search(words).await,
            Slash::Sessions => sessions::run(self.ctx, &Default::default())
                .await
                .map(|()| Flow::Go),
            Slash::Status => status::run(self.ctx).await.map(|()| Flow::Go),
            Slash::Model(reference) => self.model(reference).await,
            Slash::Rename(title) => {
                let summary = keep::rename(self.ctx, self.id(), title).await?;
                output::line(&format!("titled “{}”", summary.title));
                Ok(Flow::Go)
            }
            Slash::Resume => self.resume().await,
            Slash::Switch(id) => {
                let found = summary(self.ctx, omni_proto::SessionRef::Id(id)).await?;
                self.switch_to(found, input).await
            }
            Slash::New => {
                let created = new_session(self.ctx).await?;
                self.switch_to(created, input).await
            }
            Slash::Help => {
                output::print(&slash::help());
                Ok(Flow::Go)
            }
            Slash::Quit => Ok(Flow::Quit),
        }
    }

    /// Moves the head and shows where it is now.
    async fn head_move(&mut self, op: MoveOp, name: &str) -> Result<Flow, CtlError> {
        let moved = moves::request(self.ctx, self.id(), op).await?;
        self.calls.clear();
        output::line(&format!("{name} · head: {}", moved.head_summary));
        Ok(Flow::Go)
    }

    /// `/compact [N] [TEXT]`: a summary takes the older turns' place in the context; they
    /// stay in the tree and `/undo` right after brings them back.
    async fn compact(
        &mut self,
        keep: Option<u32>,
        instructions: Option<String>,
    ) -> Result<Flow, CtlError> {
        let asked = compact::Asked { keep, instructions };
        let live = crate::render::live::Live::new(false, false);
        let compacted = compact::request(self.ctx, self.id(), asked, live).await?;
        self.note(&crate::render::context::compacted(&compacted, "/undo"));
        Ok(Flow::Go)
    }

    /// `/skip`: the function calls are undone (they stay in the tree, off the path).
    async fn skip(&mut self) -> Result<Flow, CtlError> {
        if self.calls.is_empty() {
            return Err(CtlError::usage("no function calls wait for results"));
        }
        self.head_move(MoveOp::Undo, "skip").await
    }

    /// `/edit [N]`: prompt N of the path (default: the last) goes into the editor; the
    /// next prompt forks from before it.
    async fn edit(&mut self, node: Option<u64>) -> Result<Flow, CtlError> {
        let request = History {
            session: self.id(),
            active_only: true,
        };
        let view = self.ctx.ask(request).await?;
        let prompt = view
            .entries
            .iter()
            .rev()
            .find(|e| e.role == Role::User && node.is_none_or(|n| e.id == n))
            .ok_or_else(|| {
                CtlError::usage(match node {
                    Some(n) => format!(
                        "#{n} is not a prompt on the current path; /history --active lists them"
                    ),
                    None => "no prompt to edit yet".to_string(),
                })
            })?;
        let parent = prompt.parent.unwrap_or(0);
        self.fork_before = Some(parent);
        if self.person {
            self.initial = prompt.text.clone();
            self.note(&format!(
                "editing #{}: Enter sends it as a new branch from #{parent}; Ctrl-C cancels",
                prompt.id
            ));
        } else {
            self.note(&format!(
                "the next prompt replaces #{} as a new branch from #{parent}",
                prompt.id
            ));
        }
        Ok(Flow::Go)
    }

    /// `/search WORDS`: hits across every session, as `omnictl search` prints them.
    async fn search(&mut self, words: String) -> Result<Flow, CtlError> {
        let asked = search::Asked {
            words,
            session: None,
            role: None,
            since: None,
            limit: 20,
            archived: false,
        };
        let results = search::search(self.ctx, asked).await?;
        pager::show(
            &search::render(&results, &Style::stdout()),
            self.options.pager,
        );
        Ok(Flow::Go)
    }

    async fn branches(&mut self) -> Result<Flow, CtlError> {
        let request = Branches { session: self.id() };
        let list = self.ctx.ask(request).await?;
        let text = branches::render(&list, &Style::stdout(), width::stdout_columns());
        pager::show(&text, self.options.pager);
        Ok(Flow::Go)
    }

    async fn history(&mut self, active: bool, full: bool) -> Result<Flow, CtlError> {
        let request = History {
            session: self.id(),
            active_only: active,
        };
        let view = self.ctx.ask(request).await?;
        let detail = Detail {
            thoughts: false,
            cut: (!full).then_some("/history --full shows every entry whole"),
        };
        let text = transcript::history(&view, &Style::stdout(), detail);
        pager::show(&text, self.options.pager);
        Ok(Flow::Go)
    }

    async fn tree(&mut self) -> Result<Flow, CtlError> {
        let request = History {
            session: self.id(),
            active_only: false,
        };
        let view = self.ctx.ask(request).await?;
        let drawn = tree::draw(&view, &Style::stdout(), width::stdout_columns());
        pager::show(&drawn, self.options.pager);
        Ok(Flow::Go)
    }

    /// `/model [REF]`: the model the session asks and its fallbacks, or a switch.
    async fn model(&mut self, reference: Option<String>) -> Result<Flow, CtlError> {
        let switching = reference.is_some();
        let summary = model::request(self.ctx, self.id(), reference).await?;
        let line = model::describe(&summary);
        if switching {
            output::line(&format!("{line} · from the next prompt on"));
        } else {
            output::line(&line);
        }
        Ok(Flow::Go)
    }

    pub(super) async fn resume(&mut self) -> Result<Flow, CtlError> {
        let session = SessionArg {
            session: Some(self.session.clone()),
        };
        resume::run(self.ctx, &session).await?;
        Ok(Flow::Go)
    }

    async fn switch_to(
        &mut self,
        found: omni_proto::SessionSummary,
        input: &mut Input,
    ) -> Result<Flow, CtlError> {
        self.session = found.id.clone();
        self.fork_before = None;
        self.calls.clear();
        self.greet(found, input).await
    }
}
