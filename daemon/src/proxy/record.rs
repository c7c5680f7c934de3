//! Recording: each conversation through the proxy (whole answers and streamed) becomes a
//! session, so it can be
//! browsed, exported and replayed like any other. A request whose contents continue a
//! recorded conversation is appended to it; one that shares only a prefix forks a branch
//! at the end of the shared part; anything else starts a new session.
//!
//! The place is found without reading any history: every recorded turn is indexed by a
//! hash chain over the conversation up to it (`h_i = sha256(h_{i-1} ‖ turn_i)`), so a
//! request's longest recorded prefix is one lookup per candidate, longest first. A turn's
//! identity is its side (user or model) and what it says (visible text, function calls
//! and responses), not how the text was split into parts or its thought signatures.

use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::api::Daemon;
use crate::model::{ModelInfo, Part, PartContent, Role};
use crate::session::actor::RecordedTurn;
use crate::session::tree::NodeId;
use crate::store::ChainHash;

/// One turn of a conversation: who said it and its parts.
pub type Turn = (Role, Vec<Part>);

/// Where a recorded turn is: its session and node.
pub type Place = (Uuid, NodeId);

/// Where a recorded conversation comes from: the API (conversations of different APIs
/// are kept apart, even when they begin alike), the client, and the model it asked.
#[derive(Debug, Clone)]
pub struct Source {
    /// The API's name (`gemini`, `anthropic`, ...).
    pub api: &'static str,
    /// The API and the client's user agent, as listings show it (`gemini proxy (UA)`).
    pub origin: String,
    /// The model asked upstream, as a session names it (`PROVIDER/MODEL`), if known: a
    /// new recorded session asks it when a user continues the conversation with omnictl.
    pub model: Option<String>,
}

/// JSON text in one canonical spelling (whitespace aside), so a client's resend matches.
fn normal(json: &str) -> String {
    serde_json::from_str::<serde_json::Value>(json)
        .map_or_else(|_| json.to_string(), |v| v.to_string())
}

/// What identifies a turn in the chain.
fn canonical((role, parts): &Turn) -> Vec<u8> {
    let side = if *role == Role::Model {
        "model"
    } else {
        "user"
    };
    let mut text = String::new();
    let mut rest = Vec::new();
    for part in parts {
        match &part.content {
            PartContent::Text(piece) => text.push_str(piece),
            PartContent::Thought(_) => {}
            PartContent::FunctionCall {
                name, args_json, ..
            } => rest.push(format!("call {name} {}", normal(args_json))),
            PartContent::FunctionResponse {
                name,
                response_json,
                ..
            } => rest.push(format!("response {name} {}", normal(response_json))),
            PartContent::Other { json } => rest.push(format!("other {}", normal(json))),
            PartContent::Compaction { .. } => {}
        }
    }
    serde_json::to_vec(&(side, text, rest)).unwrap_or_default()
}

/// The hash a conversation of `api` starts from. Gemini's chains began before there were
/// other APIs and keep their seed, so conversations recorded then are still found.
fn seed(api: &str) -> ChainHash {
    let seed = match api {
        "gemini" => "omni conversation chain 1".to_string(),
        other => format!("omni conversation chain 1 {other}"),
    };
    Sha256::digest(seed.as_bytes()).into()
}

/// The chain's hash after `turn`, when it was `hash` before it.
fn next(hash: &ChainHash, turn: &Turn) -> ChainHash {
    let mut next = Sha256::new();
    next.update(hash);
    next.update(canonical(turn));
    next.finalize().into()
}

/// The chain's hash after each turn of a conversation of `api`.
pub fn chain(api: &str, turns: &[Turn]) -> Vec<ChainHash> {
    let mut hash = seed(api);
    turns
        .iter()
        .map(|turn| {
            hash = next(&hash, turn);
            hash
        })
        .collect()
}

/// A request's conversation among the recorded ones: its turns' chain hashes (computed
/// once: recording the answer goes on from them) and where its longest recorded
/// beginning ends, as found when the request arrived.
#[derive(Debug, Clone, Default)]
pub struct Placed {
    /// The chain's hash after each of the request's turns.
    pub hashes: Vec<ChainHash>,
    /// The recorded session (and node) it continues, if any: where its failures are
    /// filed.
    pub at: Option<Place>,
}

/// Where the longest recorded beginning of `turns` ends: how many turns it covers, and
/// the session and node where the last of them is recorded.
async fn longest_recorded(
    daemon: &Daemon,
    hashes: &[ChainHash],
    asked: usize,
) -> Result<Option<(usize, Place)>, String> {
    for k in (1..=asked).rev() {
        let found = daemon.services.store.chain(&hashes[k - 1]).await;
        if let Some(at) = found.map_err(|e| e.to_string())? {
            return Ok(Some((k, at)));
        }
    }
    Ok(None)
}

/// Where a request's contents stand among the recorded conversations.
pub async fn place(daemon: &Daemon, api: &str, turns: &[Turn]) -> Placed {
    let hashes = chain(api, turns);
    let at = longest_recorded(daemon, &hashes, turns.len())
        .await
        .ok()
        .flatten()
        .map(|(_, at)| at);
    Placed { hashes, at }
}

/// Records a request's turns and its answer, with their chain entries; returns the
/// session and the new nodes once they are durable. `hashes` are the turns' own, as
/// [`place`] found them (made again if they are not). Where the conversation stands is
/// looked up again: something may have been recorded since. A conversation that continues
/// a recorded one is appended through its session's actor; a new one is a new session
/// written whole.
pub async fn record(
    daemon: &Daemon,
    source: &Source,
    (mut turns, mut hashes): (Vec<Turn>, Vec<ChainHash>),
    answer: Vec<Part>,
    made: ModelInfo,
) -> Result<(Uuid, Vec<NodeId>), String> {
    let asked = turns.len();
    if hashes.len() != asked {
        hashes = chain(source.api, &turns);
    }
    turns.push((Role::Model, answer));
    let before = hashes.last().copied().unwrap_or_else(|| seed(source.api));
    hashes.push(next(&before, &turns[asked]));
    let found = longest_recorded(daemon, &hashes, asked).await?;
    let recorded = found.map_or(0, |(k, _)| k);
    let mut fresh: Vec<RecordedTurn> = turns
        .split_off(recorded)
        .into_iter()
        .zip(hashes.into_iter().skip(recorded))
        .map(|((role, parts), chain)| RecordedTurn {
            role,
            parts,
            chain,
            model: None,
        })
        .collect();
    // The last turn is the answer relayed just now; what came before, the client's own.
    if let Some(answer) = fresh.last_mut() {
        answer.model = Some(made);
    }
    let sessions = &daemon.sessions;
    let Some((_, (session, parent))) = found else {
        let model = source.model.clone();
        let new = sessions.record_new(&source.origin, model, fresh).await;
        return new.map_err(|e| e.to_string());
    };
    let actor = sessions.actor(session).await.map_err(|e| e.to_string())?;
    let nodes = actor
        .record(parent, fresh)
        .await
        .map_err(|e| e.to_string())?;
    Ok((session, nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(role: Role, texts: &[&str]) -> Turn {
        (role, texts.iter().map(|t| Part::text(*t)).collect())
    }

    #[test]
    fn a_turn_is_what_it_says_not_how_it_was_split() {
        let whole = chain(
            "gemini",
            &[
                turn(Role::User, &["hi"]),
                turn(Role::Model, &["hello there"]),
            ],
        );
        let split = chain(
            "gemini",
            &[
                turn(Role::User, &["hi"]),
                turn(Role::Model, &["hello ", "there"]),
            ],
        );
        assert_eq!(whole, split);
        let other = chain(
            "gemini",
            &[
                turn(Role::User, &["hi"]),
                turn(Role::Model, &["hello here"]),
            ],
        );
        assert_eq!(whole[0], other[0], "the shared prefix hashes alike");
        assert_ne!(whole[1], other[1]);
        let tool = chain("gemini", &[(Role::Tool, vec![Part::text("hi")])]);
        assert_eq!(tool[0], whole[0], "tool results travel on the user's side");
        let elsewhere = chain("anthropic", &[turn(Role::User, &["hi"])]);
        assert_ne!(
            elsewhere[0], whole[0],
            "each API's conversations are kept apart"
        );
    }

    #[test]
    fn the_answers_hash_goes_on_from_the_requests_hashes() {
        let asked = vec![
            turn(Role::User, &["hi"]),
            turn(Role::Model, &["hello"]),
            turn(Role::User, &["more"]),
        ];
        let answer = turn(Role::Model, &["an answer"]);
        let mut whole = asked.clone();
        whole.push(answer.clone());
        let hashes = chain("openai", &asked);
        let last = hashes.last().copied().unwrap_or_else(|| seed("openai"));
        assert_eq!(next(&last, &answer), chain("openai", &whole)[3]);
        assert_eq!(
            next(&seed("gemini"), &answer),
            chain("gemini", &[answer])[0]
        );
    }
}
