//! The tool-call loop: when the model's answer at the head holds function calls, the session
//! waits for their results. Each result is stored durably as it arrives; when every call
//! has one, they become one `tool` node (responses in call order, ids kept) and the model's
//! continuation is streamed back like an answer to a prompt.

use crate::model::{Part, PartContent, Role};
use crate::session::SessionError;
use crate::session::outcome::SessionEvent;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::requester::done_with;
use super::{Actor, ActorHandle, Command, HeadMove, RedoEffect, Reply, Run, ToolOutcome};
use crate::model::{MoveKind, NodeRecord, ToolResults};
use crate::session::calls::{Call, Waiting, waiting_at_head};
use crate::time::now_ms;

/// A function's result as the API wants it: an object (`{"output": ...}` or `{"error":
/// ...}`); anything else is wrapped as `{"output": value}`.
fn normalize_result(json: &str) -> Result<String, SessionError> {
    let value: Value = serde_json::from_str(json).map_err(|e| {
        SessionError::invalid(format!(
            "the result is not valid JSON ({e}); pass a JSON value such as '{{\"output\": 21}}'"
        ))
    })?;
    Ok(match value {
        Value::Object(_) => value.to_string(),
        other => json!({ "output": other }).to_string(),
    })
}

impl Actor {
    /// The calls at the head still waiting for results, and which are answered already.
    pub(super) async fn pending_calls(&mut self) -> Result<Option<Waiting>, SessionError> {
        let head = self.tree.head();
        if self.tree.role(head) != Some(Role::Model) {
            return Ok(None);
        }
        let node = self
            .ctx
            .store
            .node(&self.record.id, head)
            .await
            .map_err(SessionError::from)?;
        Ok(waiting_at_head(&self.record, Some(&node)))
    }

    /// A plain prompt may not follow unanswered calls: the API would reject the history.
    pub(super) async fn refuse_if_calls_pending(&mut self) -> Result<(), SessionError> {
        let Some(waiting) = self.pending_calls().await? else {
            return Ok(());
        };
        Err(SessionError::wrong_state(format!(
            "the model is waiting for the results of its function calls: {}; submit each \
                 with `omnictl tool-result NAME JSON`, or drop the calls with `omnictl undo`",
            waiting.unanswered().join(", ")
        )))
    }

    /// `tool-result`: stores one result; with the last one, sends them all and streams the
    /// continuation.
    pub(super) async fn submit_tool_result(
        &mut self,
        call_id: Option<String>,
        name: String,
        response_json: String,
        events: mpsc::UnboundedSender<SessionEvent>,
        reply_to: Reply<ToolOutcome>,
    ) {
        let (waiting, results) = match self.accept_result(call_id, &name, &response_json).await {
            Ok(accepted) => accepted,
            Err(error) => {
                let _ = reply_to.send(Err(error));
                return;
            }
        };
        if waiting.answered.iter().any(|a| !a) {
            // Not all in yet: keep this one durably and say what is still missing.
            let results = ToolResults {
                node: waiting.node,
                results,
            };
            let stored = self
                .commit_with(None, None, |r| r.tool_results = Some(results))
                .await
                .map(|()| ToolOutcome::Stored(waiting.pending()))
                .map_err(|e| e.error(&format!("the result of {name}")));
            if let Ok(ToolOutcome::Stored(calls)) = &stored {
                self.announce(SessionEvent::ToolResultStored(
                    self.record.id,
                    calls.clone(),
                ));
            }
            let _ = reply_to.send(stored);
            return;
        }
        let done = done_with(reply_to, |answer| ToolOutcome::Answered(Box::new(answer)));
        let mut by_index = results;
        by_index.sort_by_key(|(index, _)| *index);
        let parts = waiting
            .calls
            .into_iter()
            .zip(by_index)
            .map(|(call, (_, response_json))| Part {
                content: PartContent::FunctionResponse {
                    id: call.id,
                    name: call.name,
                    response_json,
                },
                thought_signature: None,
            })
            .collect();
        let tool_node = NodeRecord {
            id: self.tree.len() + 1,
            parent: waiting.node,
            role: Role::Tool,
            parts,
            created_at_ms: now_ms(),
            model: None,
        };
        let turn = tool_node.id;
        let to_head = HeadMove {
            kind: MoveKind::ToolResults,
            to: turn,
            redoes: None,
            redo: RedoEffect::Clear,
        };
        let stored = match self.hold().await {
            Ok(()) => self
                .commit(Some(tool_node), Some(to_head))
                .await
                .map_err(|e| e.error("the function results")),
            Err(error) => Err(error),
        };
        if let Err(error) = stored {
            self.let_go().await;
            return done(Err(error));
        }
        let events = self.events(Some(events));
        events.send(SessionEvent::PromptStored {
            session: self.record.id,
            node: turn,
        });
        self.start_answering(turn, events, done).await;
    }

    /// Checks a result against the pending calls; returns them with this one marked
    /// answered, and all results so far (this one included).
    async fn accept_result(
        &mut self,
        call_id: Option<String>,
        name: &str,
        response_json: &str,
    ) -> Result<(Waiting, Vec<(u32, String)>), SessionError> {
        self.refuse_change()?;
        self.refuse_if_needs_recovery()?;
        self.refuse_if_suspended()?;
        let Some(mut waiting) = self.pending_calls().await? else {
            return Err(SessionError::wrong_state(
                "no function calls are waiting for results in this session",
            ));
        };
        let calls = &waiting.calls;
        let listing = || calls.iter().map(Call::label).collect::<Vec<_>>().join(", ");
        let index = match &call_id {
            Some(id) => calls
                .iter()
                .position(|c| c.id.as_deref() == Some(id))
                .ok_or_else(|| {
                    SessionError::not_found(format!(
                        "no pending call has id {id}; the calls are: {}",
                        listing()
                    ))
                })?,
            None => calls
                .iter()
                .zip(&waiting.answered)
                .position(|(c, done)| c.name == name && !done)
                .ok_or_else(|| {
                    if calls.iter().any(|c| c.name == name) {
                        SessionError::wrong_state(format!(
                            "every call to {name} already has a result"
                        ))
                    } else {
                        SessionError::not_found(format!(
                            "the model did not call {name}; the calls are: {}",
                            listing()
                        ))
                    }
                })?,
        };
        if calls[index].name != name {
            return Err(SessionError::invalid(format!(
                "call {} is to {}, not {name}",
                call_id.unwrap_or_default(),
                calls[index].name
            )));
        }
        if waiting.answered[index] {
            return Err(SessionError::wrong_state(format!(
                "call {} already has a result",
                calls[index].label()
            )));
        }
        let response = normalize_result(response_json)?;
        let mut results = self
            .record
            .tool_results
            .as_ref()
            .filter(|r| r.node == waiting.node)
            .map(|r| r.results.clone())
            .unwrap_or_default();
        results.push((index as u32, response));
        waiting.answered[index] = true;
        Ok((waiting, results))
    }
}

/// [`ActorHandle::tool_result`]'s command.
pub(super) struct ToolResultCommand {
    call_id: Option<String>,
    name: String,
    response_json: String,
    events: mpsc::UnboundedSender<SessionEvent>,
    reply: Reply<ToolOutcome>,
}

impl ActorHandle {
    /// Submits one function result; once all are in, the continuation streams to `events`.
    pub async fn tool_result(
        &self,
        call_id: Option<String>,
        name: String,
        response_json: String,
        events: mpsc::UnboundedSender<SessionEvent>,
    ) -> Result<ToolOutcome, SessionError> {
        self.call(|reply| {
            Command::ToolResult(ToolResultCommand {
                call_id,
                name,
                response_json,
                events,
                reply,
            })
        })
        .await
    }
}

impl Run for ToolResultCommand {
    async fn run(self, actor: &mut Actor) {
        actor
            .submit_tool_result(
                self.call_id,
                self.name,
                self.response_json,
                self.events,
                self.reply,
            )
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_objects() {
        assert_eq!(
            normalize_result(r#"{"output": 21}"#).unwrap(),
            r#"{"output":21}"#
        );
        assert_eq!(normalize_result("21").unwrap(), r#"{"output":21}"#);
        assert_eq!(
            normalize_result(r#""sunny""#).unwrap(),
            r#"{"output":"sunny"}"#
        );
        assert!(normalize_result("not json").is_err());
    }
}
