//! Each session's shape, kept beside its nodes so that a session loads without reading
//! them: every node's parent and role, packed into one varint per node (the distance to
//! the parent, shifted, with the role in the low bits: one byte for a node under the one
//! before it), in chunks of [`PER_CHUNK`] nodes under session id ‖ chunk number.
//!
//! A chunk is rewritten (read, cut to the node's place, appended to) with every node, in
//! the same write as the node. The index is derived data: one that holds fewer nodes than
//! the session's record counts (a store from before it, or a write a crash cut short) is
//! rebuilt from the nodes when the session is next read, and entries past the record's
//! count (a change a crash cut short) are ignored.

use uuid::Uuid;

use super::handles::Db;
use super::{Link, SledStore, StoreError, child_key};
use crate::model::{NodeId, NodeRecord, Role};

/// Nodes per chunk: a chunk of one-byte entries stays a few hundred bytes, so rewriting
/// it with every node costs little, and a 100,000-node session is 391 chunks.
pub const PER_CHUNK: u64 = 256;

/// Format of a chunk's value (its first byte).
const LINKS_FORMAT: u8 = 1;

fn role_code(role: Role) -> u64 {
    u64::from(Link::role_code(role))
}

fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends node `id`'s entry.
fn push_entry(out: &mut Vec<u8>, id: NodeId, link: Link) {
    push_varint(
        out,
        (id.saturating_sub(link.parent) << 2) | role_code(link.role),
    );
}

/// Reads a chunk whose first node is `first`; each entry's end offset is kept so a chunk
/// can be cut at any node.
fn decode(bytes: &[u8], first: NodeId) -> Result<Vec<(Link, usize)>, StoreError> {
    let corrupt = |why: &str| StoreError::Corrupt(format!("the session index: {why}"));
    let Some((&LINKS_FORMAT, body)) = bytes.split_first() else {
        return Err(corrupt("an unknown format"));
    };
    let mut links = Vec::new();
    let (mut value, mut shift) = (0u64, 0u32);
    for (offset, &byte) in body.iter().enumerate() {
        if shift > 63 {
            return Err(corrupt("an entry too long"));
        }
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 != 0 {
            continue;
        }
        let id = first + links.len() as u64;
        let role = Link::role_of((value & 3) as u8);
        let parent = id
            .checked_sub(value >> 2)
            .filter(|parent| *parent < id)
            .ok_or_else(|| corrupt("a parent after its child"))?;
        links.push((Link { parent, role }, offset + 2));
        (value, shift) = (0, 0);
    }
    Ok(links)
}

/// The chunk holding node `id`, and the node's place in it.
fn place(id: NodeId) -> (u64, usize) {
    let index = id.saturating_sub(1);
    (index / PER_CHUNK, (index % PER_CHUNK) as usize)
}

/// The first node of chunk `chunk`.
fn first_of(chunk: u64) -> NodeId {
    chunk * PER_CHUNK + 1
}

/// A chunk's key and value, ready to write.
pub(super) type Chunk = ([u8; 24], Vec<u8>);

/// The key and value of `node`'s chunk once the node is in it; `None` when the index does
/// not reach the node's place (it is rebuilt when the session is next read).
pub(super) fn with_node(
    db: &Db,
    session: &Uuid,
    node: &NodeRecord,
) -> Result<Option<Chunk>, StoreError> {
    let (chunk, position) = place(node.id);
    let key = child_key(session, chunk);
    let mut value = match db.links.get(key)? {
        Some(old) => {
            let entries = decode(&old, first_of(chunk))?;
            match position.checked_sub(1).map(|before| entries.get(before)) {
                None => vec![LINKS_FORMAT],
                Some(Some((_, end))) => old[..*end].to_vec(),
                Some(None) => return Ok(None),
            }
        }
        None if position == 0 => vec![LINKS_FORMAT],
        None => return Ok(None),
    };
    let link = Link {
        parent: node.parent,
        role: node.role,
    };
    push_entry(&mut value, node.id, link);
    Ok(Some((key, value)))
}

/// Every chunk of a whole session written at once (an import): `nodes` are numbered
/// from 1 in order.
pub(super) fn chunks_of(session: &Uuid, nodes: &[NodeRecord]) -> Vec<Chunk> {
    nodes
        .chunks(PER_CHUNK as usize)
        .enumerate()
        .map(|(chunk, group)| {
            let mut value = vec![LINKS_FORMAT];
            for node in group {
                let link = Link {
                    parent: node.parent,
                    role: node.role,
                };
                push_entry(&mut value, node.id, link);
            }
            (child_key(session, chunk as u64), value)
        })
        .collect()
}

impl SledStore {
    /// The parent and role of each of a session's first `count` nodes, read from the
    /// index (a few hundred bytes per 256 nodes); an index that holds fewer is rebuilt
    /// from the nodes first.
    pub fn links(&self, session: &Uuid, count: u64) -> Result<Vec<Link>, StoreError> {
        let db = self.db.get()?;
        let mut links = Vec::with_capacity(count as usize);
        for item in db.links.scan_prefix(session.as_bytes()) {
            let (key, value) = item?;
            let chunk = super::key_number(&key).unwrap_or_default();
            if first_of(chunk) != links.len() as u64 + 1 {
                break;
            }
            let entries = decode(&value, first_of(chunk))?;
            let full = entries.len() as u64 == PER_CHUNK;
            links.extend(entries.into_iter().map(|(link, _)| link));
            if !full || links.len() as u64 >= count {
                break;
            }
        }
        if (links.len() as u64) < count {
            return self.rebuild_links(&db, session, count);
        }
        links.truncate(count as usize);
        Ok(links)
    }

    /// Writes a session's index anew from its nodes (no sync: it is derived, and rebuilt
    /// again if a crash loses it); returns the first `count` links.
    fn rebuild_links(&self, db: &Db, session: &Uuid, count: u64) -> Result<Vec<Link>, StoreError> {
        let nodes = self.nodes(session)?;
        let mut links = Vec::with_capacity(nodes.len());
        for (index, node) in nodes.iter().enumerate() {
            if node.id != index as u64 + 1 {
                return Err(StoreError::Corrupt(format!(
                    "node {} is missing (node {} follows)",
                    index + 1,
                    node.id
                )));
            }
            links.push(Link {
                parent: node.parent,
                role: node.role,
            });
        }
        for (chunk, part) in links.chunks(PER_CHUNK as usize).enumerate() {
            let first = first_of(chunk as u64);
            let mut value = vec![LINKS_FORMAT];
            for (offset, link) in part.iter().enumerate() {
                push_entry(&mut value, first + offset as u64, *link);
            }
            db.links.insert(child_key(session, chunk as u64), value)?;
        }
        tracing::debug!(session = %session, nodes = links.len(), "session index rebuilt");
        links.truncate(count as usize);
        Ok(links)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_cost_one_byte_under_the_previous_node() {
        let links = [
            Link {
                parent: 0,
                role: Role::User,
            },
            Link {
                parent: 1,
                role: Role::Model,
            },
            Link {
                parent: 2,
                role: Role::Tool,
            },
            Link {
                parent: 1,
                role: Role::Model,
            },
            Link {
                parent: 0,
                role: Role::User,
            },
        ];
        let mut value = vec![LINKS_FORMAT];
        for (i, link) in links.iter().enumerate() {
            push_entry(&mut value, i as u64 + 1, *link);
        }
        assert_eq!(value.len(), 1 + links.len());
        let read: Vec<Link> = decode(&value, 1)
            .unwrap()
            .into_iter()
            .map(|(l, _)| l)
            .collect();
        assert_eq!(read, links);
        let far = Link {
            parent: 3,
            role: Role::User,
        };
        let mut long = vec![LINKS_FORMAT];
        push_entry(&mut long, 100_000, far);
        assert_eq!(decode(&long, 100_000).unwrap()[0].0, far);
    }

    #[test]
    fn a_damaged_chunk_is_named() {
        assert!(decode(&[9, 4], 1).is_err());
        // Node 1 cannot have a parent two before it.
        assert!(decode(&[LINKS_FORMAT, 8], 1).is_err());
    }
}
