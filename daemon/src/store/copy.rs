//! Moving a store (`omnid store copy`): every session of one store, whichever backend holds
//! it, written whole into another (its record, nodes, moves, origin, import hash and a
//! recorded conversation's chain entries), then read back and counted. A session the
//! destination holds already, exactly so, is left alone, so a copy run twice adds nothing;
//! one it holds differently is left alone too, and named.

use std::collections::HashMap;

use uuid::Uuid;

use super::{ChainHash, ContentHash, Import, Store, StoreError};
use crate::model::NodeId;

/// What a copy did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Copied {
    /// Sessions written into the destination.
    pub sessions: usize,
    /// Their nodes.
    pub nodes: u64,
    /// The moves of their head logs.
    pub moves: u64,
    /// Recorded conversations' chain entries.
    pub chains: usize,
    /// Imports' content hashes.
    pub imports: usize,
    /// Diagnostic records (from a shared store into another; a data directory keeps its
    /// records in its log directory, not in the store).
    pub diagnostics: usize,
    /// Sessions the destination held already, exactly so.
    pub already: usize,
    /// Sessions the destination holds differently: left as they are there.
    pub differing: Vec<Uuid>,
}

/// Copies every session of `from` into `to`, verifying each once written.
pub async fn copy(from: &Store, to: &Store) -> Result<Copied, StoreError> {
    let mut chains: HashMap<Uuid, Vec<(ChainHash, NodeId)>> = HashMap::new();
    for (hash, session, node) in from.chain_entries().await? {
        chains.entry(session).or_default().push((hash, node));
    }
    let imports: HashMap<Uuid, ContentHash> = from
        .import_entries()
        .await?
        .into_iter()
        .map(|(hash, session)| (session, hash))
        .collect();
    let mut copied = Copied::default();
    for stored in from.sessions().await? {
        let record = stored.record.map_err(|error| {
            StoreError::Corrupt(format!("session {} cannot be read: {error}", stored.id))
        })?;
        let id = record.id;
        match to.session(&id).await? {
            Some(there) if there == record => {
                copied.already += 1;
                continue;
            }
            Some(_) => {
                copied.differing.push(id);
                continue;
            }
            None => {}
        }
        let mut nodes = from.nodes(&id).await?;
        nodes.truncate(record.nodes as usize);
        let mut moves = from.moves(&id).await?;
        moves.truncate(record.moves as usize);
        if nodes.len() as u64 != record.nodes || moves.len() as u64 != record.moves {
            return Err(StoreError::Corrupt(format!(
                "session {id} counts {} nodes and {} moves, but {} and {} are stored",
                record.nodes,
                record.moves,
                nodes.len(),
                moves.len()
            )));
        }
        let origin = from.origin(&id).await;
        let session_chains = chains.remove(&id).unwrap_or_default();
        let import = Import {
            session: &record,
            nodes: &nodes,
            moves: &moves,
            origin: origin.as_deref(),
            hash: imports.get(&id).copied(),
            chains: &session_chains,
        };
        to.import(&import).await?;
        verify(to, &record).await?;
        copied.sessions += 1;
        copied.nodes += record.nodes;
        copied.moves += record.moves;
        copied.chains += session_chains.len();
        copied.imports += usize::from(import.hash.is_some());
    }
    if let Some(records) = from.diagnostics(None, None).await? {
        for record in &records {
            to.put_diagnostic(record).await?;
        }
        if to.is_shared() {
            copied.diagnostics = records.len();
        }
    }
    Ok(copied)
}

/// Reads a copied session back: its record, and as many nodes and moves as it counts.
async fn verify(to: &Store, record: &crate::model::SessionRecord) -> Result<(), StoreError> {
    let id = record.id;
    let there = to.session(&id).await?;
    let nodes = to.nodes(&id).await?.len() as u64;
    let moves = to.moves(&id).await?.len() as u64;
    if there.as_ref() != Some(record) || nodes < record.nodes || moves < record.moves {
        return Err(StoreError::Corrupt(format!(
            "session {id} reads back differently from the destination ({nodes} nodes and \
             {moves} moves of {} and {})",
            record.nodes, record.moves
        )));
    }
    Ok(())
}
