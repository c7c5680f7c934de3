//! The edge between the daemon's own types and the wire protocol's: every conversion in
//! one place, so the layers below never see a protocol type.

use omni_proto as wire;

use crate::api::views::context;
use crate::model::{ModelInfo, Part, PartContent, Role, Usage};
use crate::resilience::{BreakerState, BreakerStatus};
use crate::session::SessionError;
use crate::session::outcome::{
    Answer, HeadOp, MoveOutcome, PendingCall, Recovered, RecoveryChoice, RetryNotice, SessionEvent,
};

/// The session a request names: `None` for the current one.
pub fn session_ref(session: &wire::SessionRef) -> Option<&str> {
    match session {
        wire::SessionRef::Current => None,
        wire::SessionRef::Id(id) => Some(id),
    }
}

impl From<Role> for wire::Role {
    fn from(role: Role) -> Self {
        match role {
            Role::User => wire::Role::User,
            Role::Model => wire::Role::Model,
            Role::Tool => wire::Role::Tool,
            Role::Summary => wire::Role::Summary,
        }
    }
}

impl From<PartContent> for wire::PartContent {
    fn from(content: PartContent) -> Self {
        match content {
            PartContent::Text(text) => wire::PartContent::Text(text),
            PartContent::Thought(text) => wire::PartContent::Thought(text),
            PartContent::FunctionCall {
                id,
                name,
                args_json,
            } => wire::PartContent::FunctionCall {
                id,
                name,
                args_json,
            },
            PartContent::FunctionResponse {
                id,
                name,
                response_json,
            } => wire::PartContent::FunctionResponse {
                id,
                name,
                response_json,
            },
            PartContent::Other { json } => wire::PartContent::Other { json },
            PartContent::Compaction {
                resumes_at,
                instructions,
            } => wire::PartContent::Compaction {
                resumes_at,
                instructions,
            },
        }
    }
}

impl From<Part> for wire::Part {
    fn from(part: Part) -> Self {
        wire::Part {
            content: part.content.into(),
            thought_signature: part.thought_signature,
        }
    }
}

impl From<Usage> for wire::Usage {
    fn from(usage: Usage) -> Self {
        wire::Usage {
            prompt_tokens: usage.prompt_tokens,
            answer_tokens: usage.answer_tokens,
            thought_tokens: usage.thought_tokens,
            total_tokens: usage.total_tokens,
            cached_tokens: usage.cached_tokens,
        }
    }
}

impl From<ModelInfo> for wire::ModelInfo {
    fn from(info: ModelInfo) -> Self {
        wire::ModelInfo {
            model: info.model,
            model_version: info.model_version,
            finish_reason: info.finish_reason,
            usage: info.usage.map(Into::into),
            attempts: info.attempts,
            latency_ms: info.latency_ms,
            interrupted: info.interrupted,
            provider: info.provider,
        }
    }
}

impl From<RetryNotice> for wire::RetryNotice {
    fn from(notice: RetryNotice) -> Self {
        wire::RetryNotice {
            attempt: notice.attempt,
            max_attempts: notice.max_attempts,
            class: notice.class,
            message: notice.message,
            wait_ms: notice.wait_ms,
            discarded_partial: notice.discarded_partial,
            fallback_to: notice.fallback_to,
        }
    }
}

/// A session's event as clients see it; an answer's running total priced by `prices`.
pub fn event(event: SessionEvent, prices: &crate::config::Prices) -> wire::Event {
    {
        match event {
            SessionEvent::PromptStored { session, node } => wire::Event::PromptStored {
                session: session.to_string(),
                node,
            },
            SessionEvent::PromptsMerged { session, prompts } => wire::Event::PromptsMerged {
                session: session.to_string(),
                prompts,
            },
            SessionEvent::Text(text) => wire::Event::Text(text),
            SessionEvent::Thought(text) => wire::Event::Thought(text),
            SessionEvent::FunctionCall(part) => wire::Event::FunctionCall(part.into()),
            SessionEvent::Retrying(notice) => wire::Event::Retrying(notice.into()),
            SessionEvent::Answered(answer) => wire::Event::Answered(self::answer(*answer, prices)),
            SessionEvent::Failed(error) => wire::Event::Failed(error.into()),
            SessionEvent::Moved(outcome) => wire::Event::Moved(outcome.into()),
            SessionEvent::Recovered(recovered) => wire::Event::Recovered(recovered.into()),
            SessionEvent::Resumed(session) => wire::Event::Resumed {
                session: session.to_string(),
            },
            SessionEvent::ToolResultStored(session, calls) => wire::Event::ToolResultStored {
                session: session.to_string(),
                calls: calls.into_iter().map(Into::into).collect(),
            },
            SessionEvent::Compacting(compacting) => {
                wire::Event::Compacting(context::compacting(compacting))
            }
            SessionEvent::Compacted(compacted) => {
                wire::Event::Compacted(Box::new(context::compacted(*compacted)))
            }
            SessionEvent::Changed(session) => wire::Event::Changed {
                session: session.to_string(),
            },
        }
    }
}

impl From<PendingCall> for wire::PendingCall {
    fn from(call: PendingCall) -> Self {
        wire::PendingCall {
            id: call.id,
            name: call.name,
            args_json: call.args_json,
            answered: call.answered,
        }
    }
}

/// An answer as clients see it, the session's running total priced by `prices`.
pub fn answer(answer: Answer, prices: &crate::config::Prices) -> wire::Answer {
    wire::Answer {
        session: answer.session.to_string(),
        prompt_node: answer.prompt_node,
        prompts: answer.prompts,
        node: answer.node,
        text: answer.text,
        model: answer.model.into(),
        pending_calls: answer.pending_calls.into_iter().map(Into::into).collect(),
        session_usage: crate::api::views::usage::totals(&answer.session_usage, prices),
        context: context::gauge(&answer.context),
    }
}

impl From<wire::MoveOp> for HeadOp {
    fn from(op: wire::MoveOp) -> Self {
        match op {
            wire::MoveOp::Undo => HeadOp::Undo,
            wire::MoveOp::Redo => HeadOp::Redo,
            wire::MoveOp::Back => HeadOp::Back,
            wire::MoveOp::Checkout { node } => HeadOp::Checkout(node),
        }
    }
}

impl From<HeadOp> for wire::MoveOp {
    fn from(op: HeadOp) -> Self {
        match op {
            HeadOp::Undo => wire::MoveOp::Undo,
            HeadOp::Redo => wire::MoveOp::Redo,
            HeadOp::Back => wire::MoveOp::Back,
            HeadOp::Checkout(node) => wire::MoveOp::Checkout { node },
        }
    }
}

impl From<MoveOutcome> for wire::MoveOutcome {
    fn from(outcome: MoveOutcome) -> Self {
        wire::MoveOutcome {
            session: outcome.session.to_string(),
            op: outcome.op.into(),
            from: outcome.from,
            to: outcome.to,
            head_summary: outcome.head_summary,
        }
    }
}

impl From<wire::RecoveryAction> for RecoveryChoice {
    fn from(action: wire::RecoveryAction) -> Self {
        match action {
            wire::RecoveryAction::Deep => RecoveryChoice::Deep,
            wire::RecoveryAction::Clear => RecoveryChoice::Clear,
            wire::RecoveryAction::Ignore => RecoveryChoice::Ignore,
            wire::RecoveryAction::Retry => RecoveryChoice::Retry,
            wire::RecoveryAction::Compact => RecoveryChoice::Compact,
        }
    }
}

impl From<RecoveryChoice> for wire::RecoveryAction {
    fn from(choice: RecoveryChoice) -> Self {
        match choice {
            RecoveryChoice::Deep => wire::RecoveryAction::Deep,
            RecoveryChoice::Clear => wire::RecoveryAction::Clear,
            RecoveryChoice::Ignore => wire::RecoveryAction::Ignore,
            RecoveryChoice::Retry => wire::RecoveryAction::Retry,
            RecoveryChoice::Compact => wire::RecoveryAction::Compact,
        }
    }
}

impl From<Recovered> for wire::Recovered {
    fn from(recovered: Recovered) -> Self {
        wire::Recovered {
            session: recovered.session.to_string(),
            action: recovered.choice.into(),
            from: recovered.from,
            to: recovered.to,
            head_summary: recovered.head_summary,
        }
    }
}

/// The ways out of *needs recovery*, as every refusal and the failed send print them.
fn recovery_options(reason_line: &str) -> String {
    let mut text = format!(
        "{reason_line}\nChoose one with `omnictl recover` (or send a new prompt in place of \
         a failed one with `omnictl send --replace`):\n"
    );
    for action in wire::RecoveryAction::ALL {
        text.push_str(&format!(
            "  {:<9} {}\n",
            action.flag(),
            action.explanation()
        ));
    }
    text.push_str(
        "or write the diagnostic bundle with `omnictl logs export` (the state stays). \
         Nothing is deleted: `omnictl redo` takes a rollback back.",
    );
    text
}

impl From<SessionError> for wire::ErrorReply {
    fn from(error: SessionError) -> Self {
        use wire::ErrorKind as Kind;
        let kind = match &error {
            SessionError::NotFound(_) => Kind::NotFound,
            SessionError::Busy(_) | SessionError::BusyElsewhere(_) | SessionError::Unloaded(_) => {
                Kind::Busy
            }
            SessionError::Invalid(_) => Kind::InvalidRequest,
            SessionError::WrongState(_) => Kind::WrongState,
            SessionError::Upstream(_) => Kind::UpstreamFailure,
            SessionError::Internal(_) => Kind::Internal,
            SessionError::ShuttingDown(_) => Kind::ShuttingDown,
            SessionError::Suspended(_) => Kind::Suspended,
            SessionError::NeedsRecovery { .. } => Kind::NeedsRecovery,
            SessionError::Storage(_) => Kind::Storage,
            SessionError::Damaged { .. } => Kind::Damaged,
            SessionError::Cancelled(_) => Kind::Cancelled,
        };
        let message = match &error {
            SessionError::NeedsRecovery { .. } => recovery_options(&error.to_string()),
            _ => error.to_string(),
        };
        wire::ErrorReply::new(kind, message)
    }
}

impl From<BreakerStatus> for wire::BreakerStatus {
    fn from(status: BreakerStatus) -> Self {
        wire::BreakerStatus {
            endpoint: status.endpoint,
            state: match status.state {
                BreakerState::Closed => wire::BreakerState::Closed,
                BreakerState::Open => wire::BreakerState::Open,
                BreakerState::HalfOpen => wire::BreakerState::HalfOpen,
            },
            consecutive_failures: status.consecutive_failures,
            next_probe_in_ms: status.next_probe_in_ms,
        }
    }
}

/// A store failure as a wire error.
pub fn store_error(error: crate::store::StoreError) -> wire::ErrorReply {
    SessionError::from(error).into()
}
