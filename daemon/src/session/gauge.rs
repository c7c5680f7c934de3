//! How many tokens a session's context holds, and how that compares with its model's
//! window. The last complete answer's usage says exactly what its request held (and its
//! own tokens join the context); what was added since is estimated, until the next answer
//! corrects it. Reading is a walk up from the head to that answer: a node or two.

use crate::model::{NodeId, NodeRecord, PartContent, ROOT, Role, SessionRecord};
use crate::services::{Live, Services, Window};
use crate::store::StoreError;

/// Bytes of text per token, for the estimate (English prose and code average about 4).
const BYTES_PER_TOKEN: u64 = 4;

/// Tokens a context holds, and how many of them are an estimate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextSize {
    /// All of them.
    pub tokens: u64,
    /// Of those, estimated (0: exactly as the API counted).
    pub estimated: u64,
}

/// About how many tokens a node adds to a context: a quarter of the bytes of what is
/// sent of it (text, calls and results; thoughts are not sent back).
pub fn estimate(node: &NodeRecord) -> u64 {
    let bytes: usize = node
        .parts
        .iter()
        .map(|part| match &part.content {
            PartContent::Text(text) => text.len(),
            PartContent::FunctionCall {
                name, args_json, ..
            } => name.len() + args_json.len(),
            PartContent::FunctionResponse {
                name,
                response_json,
                ..
            } => name.len() + response_json.len(),
            PartContent::Other { json } => json.len(),
            PartContent::Thought(_) | PartContent::Compaction { .. } => 0,
        })
        .sum();
    (bytes as u64).div_ceil(BYTES_PER_TOKEN)
}

/// The tokens an answer's request held plus its own, when the API reported them.
fn reported(node: &NodeRecord) -> Option<u64> {
    let info = node.model.as_ref().filter(|info| !info.interrupted)?;
    let usage = info.usage.filter(|usage| usage.prompt_tokens > 0)?;
    Some(u64::from(usage.prompt_tokens) + u64::from(usage.answer_tokens))
}

/// The size of the context whose last node is `head`, reading nodes with `node`. Above
/// a summary, the answers' usage counted a context that is gone: a summary and the
/// nodes it kept are estimated. `known`: a node above whose context's size is known
/// already (a context is a function of the tree above its node, which never changes), so
/// a session whose answers report no usage is not walked to its start at every send.
pub async fn measure<E, F: Future<Output = Result<NodeRecord, E>>>(
    head: NodeId,
    known: Option<(NodeId, ContextSize)>,
    mut node: impl FnMut(NodeId) -> F,
) -> Result<ContextSize, E> {
    let mut estimated = 0;
    let mut at = head;
    while at != ROOT {
        if let Some((_, size)) = known.filter(|(node, _)| *node == at) {
            return Ok(ContextSize {
                tokens: size.tokens + estimated,
                estimated: size.estimated + estimated,
            });
        }
        let current = node(at).await?;
        if current.role == Role::Model
            && let Some(tokens) = reported(&current)
        {
            return Ok(ContextSize {
                tokens: tokens + estimated,
                estimated,
            });
        }
        estimated += estimate(&current);
        if current.role == Role::Summary {
            if let Some(first) = current.resumes_at() {
                let mut kept = current.parent;
                while kept != ROOT {
                    let held = node(kept).await?;
                    estimated += estimate(&held);
                    if kept == first {
                        break;
                    }
                    kept = held.parent;
                }
            }
            break;
        }
        at = current.parent;
    }
    Ok(ContextSize {
        tokens: estimated,
        estimated,
    })
}

/// A context's size against its model's window.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Gauge {
    /// The context's size.
    pub size: ContextSize,
    /// The model it is measured against (`PROVIDER/MODEL`).
    pub model: String,
    /// Its window, when known.
    pub window: Option<Window>,
    /// The percentage past which clients are warned.
    pub warn_at: u8,
}

impl Gauge {
    /// The size as a percentage of the window, when it is known.
    pub fn percent(&self) -> Option<u32> {
        let window = self.window?.tokens.max(1);
        Some(((self.size.tokens.saturating_mul(100)) / window).min(u64::from(u32::MAX)) as u32)
    }

    /// Whether the context is at or past `percent` of the window (never, unknown).
    pub fn past(&self, percent: u8) -> bool {
        self.percent().is_some_and(|now| now >= u32::from(percent))
    }

    /// What to tell the user once the context passes `warn_at`.
    pub fn warning(&self) -> Option<String> {
        let now = self.percent().filter(|_| self.past(self.warn_at))?;
        Some(format!(
            "the context is at {now}% of {}'s window: `omnictl compact` summarises the older \
             turns (they stay in the session, one undo away)",
            self.model
        ))
    }
}

/// How full the context whose last node is `node` is, against the window of the model
/// the session asks next. A node that cannot be read counts as empty (and is logged).
/// `known` as for [`measure`].
pub async fn gauge_of(
    services: &Services,
    live: &Live,
    record: &SessionRecord,
    node: NodeId,
    known: Option<(NodeId, ContextSize)>,
) -> Gauge {
    let size = size_of(services, record, node, known)
        .await
        .unwrap_or_else(|error| {
            tracing::warn!(session = %record.id, %error, "cannot measure the context");
            ContextSize::default()
        });
    let own = record.model.as_ref().unwrap_or(&live.config.provider.model);
    let (model, window) = match live.endpoint(own) {
        Ok(endpoint) => {
            let (provider, kind) = (&endpoint.provider, endpoint.kind);
            let window = services
                .windows
                .window(live, provider, kind, &endpoint.model);
            (endpoint.reference, window)
        }
        Err(_) => (own.clone(), None),
    };
    Gauge {
        size,
        model,
        window,
        warn_at: live.config.context.warn_at,
    }
}

/// Nodes a measure reads one by one from a shared store before it reads the session's
/// nodes all at once: a walk back to the last answer that reported its usage is short, but
/// one through answers that reported none (an import) reads the whole path, a round trip
/// each on a database.
const ONE_BY_ONE: usize = 8;

/// Why a measure stopped reading nodes one by one.
enum Stop {
    /// It read [`ONE_BY_ONE`] already.
    TooMany,
    /// The store failed.
    Store(StoreError),
}

/// The context's size ([`measure`]), its nodes read from the store.
async fn size_of(
    services: &Services,
    record: &SessionRecord,
    node: NodeId,
    known: Option<(NodeId, ContextSize)>,
) -> Result<ContextSize, StoreError> {
    let store = &services.store;
    let mut reads = 0usize;
    let one = |id| {
        reads += 1;
        let too_many = store.is_shared() && reads > ONE_BY_ONE;
        async move {
            if too_many {
                return Err(Stop::TooMany);
            }
            store.node(&record.id, id).await.map_err(Stop::Store)
        }
    };
    match measure(node, known, one).await {
        Ok(size) => Ok(size),
        Err(Stop::Store(error)) => Err(error),
        Err(Stop::TooMany) => {
            let all: std::collections::HashMap<NodeId, NodeRecord> = store
                .nodes(&record.id)
                .await?
                .into_iter()
                .map(|node| (node.id, node))
                .collect();
            let held = |id| {
                let found = all.get(&id).cloned();
                std::future::ready(found.ok_or_else(|| {
                    StoreError::Corrupt(format!("node {id} of session {} is missing", record.id))
                }))
            };
            measure(node, known, held).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ModelInfo, Part, Usage};

    fn node(id: NodeId, parent: NodeId, role: Role, text: &str) -> NodeRecord {
        NodeRecord {
            id,
            parent,
            role,
            parts: vec![Part::text(text)],
            created_at_ms: 0,
            model: None,
        }
    }

    fn answered(mut node: NodeRecord, prompt_tokens: u32, answer_tokens: u32) -> NodeRecord {
        node.model = Some(ModelInfo {
            model: "m".into(),
            model_version: None,
            finish_reason: Some("STOP".into()),
            usage: Some(Usage {
                prompt_tokens,
                answer_tokens,
                ..Usage::default()
            }),
            attempts: 1,
            latency_ms: 0,
            interrupted: false,
            provider: "p".into(),
        });
        node
    }

    #[tokio::test]
    async fn the_last_answer_counts_exactly_and_what_follows_is_estimated() {
        let nodes = [
            node(1, 0, Role::User, "hello"),
            answered(node(2, 1, Role::Model, "hi"), 1000, 20),
            node(3, 2, Role::User, &"x".repeat(400)),
        ];
        let read = |id: NodeId| std::future::ready(Ok::<_, ()>(nodes[id as usize - 1].clone()));
        let size = measure(3, None, read).await.unwrap();
        assert_eq!(
            size,
            ContextSize {
                tokens: 1120,
                estimated: 100
            }
        );
        assert_eq!(measure(2, None, read).await.unwrap().estimated, 0);
        let known = Some((
            1,
            ContextSize {
                tokens: 7,
                estimated: 7,
            },
        ));
        assert_eq!(
            measure(3, known, read).await.unwrap(),
            ContextSize {
                tokens: 1120,
                estimated: 100
            },
            "an answer nearer than the known node wins"
        );
    }

    #[tokio::test]
    async fn without_usage_the_walk_stops_at_a_node_measured_before() {
        let nodes = [
            node(1, 0, Role::User, &"a".repeat(40)),
            node(2, 1, Role::Model, &"b".repeat(40)),
            node(3, 2, Role::User, &"c".repeat(40)),
            node(4, 3, Role::Model, &"d".repeat(40)),
        ];
        let reads = std::cell::Cell::new(0);
        let read = async |id: NodeId| {
            reads.set(reads.get() + 1);
            Ok::<_, ()>(nodes[id as usize - 1].clone())
        };
        let at_two = measure(2, None, read).await.unwrap();
        assert_eq!((at_two.tokens, reads.get()), (20, 2));
        reads.set(0);
        let at_four = measure(4, Some((2, at_two)), read).await.unwrap();
        assert_eq!((at_four.tokens, at_four.estimated), (40, 40));
        assert_eq!(reads.get(), 2, "nodes 1 and 2 are not read again");
    }

    #[tokio::test]
    async fn past_a_summary_everything_is_estimated() {
        let mut summary = node(5, 4, Role::Summary, &"s".repeat(40));
        summary.parts.push(Part::from(PartContent::Compaction {
            resumes_at: Some(3),
            instructions: None,
        }));
        let nodes = [
            node(1, 0, Role::User, "a"),
            answered(node(2, 1, Role::Model, "b"), 90_000, 10),
            node(3, 2, Role::User, &"p".repeat(8)),
            answered(node(4, 3, Role::Model, &"q".repeat(8)), 95_000, 2),
            summary,
        ];
        let read = |id: NodeId| std::future::ready(Ok::<_, ()>(nodes[id as usize - 1].clone()));
        assert_eq!(
            measure(5, None, read).await.unwrap(),
            ContextSize {
                tokens: 14,
                estimated: 14
            }
        );
    }

    #[test]
    fn a_gauge_warns_past_its_threshold_and_never_against_an_unknown_window() {
        let mut gauge = Gauge {
            size: ContextSize {
                tokens: 850,
                estimated: 0,
            },
            model: "p/m".into(),
            window: None,
            warn_at: 80,
        };
        assert_eq!((gauge.percent(), gauge.warning()), (None, None));
        gauge.window = Some(Window {
            tokens: 1000,
            source: crate::services::WindowSource::Config,
        });
        assert_eq!(gauge.percent(), Some(85));
        assert!(gauge.warning().unwrap().contains("85%"));
        gauge.size.tokens = 799;
        assert_eq!(gauge.warning(), None);
    }
}
