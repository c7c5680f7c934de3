//! A compaction too big for one summary request is summarised in pieces: each piece's
//! request carries the summary so far, the piece's nodes and the request for a summary,
//! so no request is larger than about one piece. Pieces end where a round ends (before a
//! prompt), so a tool chain is never cut. Pure functions, tested here.

use std::collections::VecDeque;

use crate::model::{NodeId, Role};

/// One covered node as the split sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sized {
    /// The node.
    pub id: NodeId,
    /// Its role: a piece may end only before a prompt.
    pub role: Role,
    /// Its tokens, by the estimate.
    pub tokens: u64,
}

/// The covered nodes in pieces of at most `budget` tokens each (a single round larger
/// than the budget is a piece of its own), in order; one piece without a budget.
pub fn split(covered: &[Sized], budget: Option<u64>) -> VecDeque<Vec<Sized>> {
    let Some(budget) = budget else {
        return VecDeque::from([covered.to_vec()]);
    };
    let mut pieces = VecDeque::new();
    let mut piece: Vec<Sized> = Vec::new();
    let mut tokens = 0;
    for round in rounds(covered) {
        let size: u64 = round.iter().map(|node| node.tokens).sum();
        if !piece.is_empty() && tokens + size > budget {
            pieces.push_back(std::mem::take(&mut piece));
            tokens = 0;
        }
        tokens += size;
        piece.extend_from_slice(round);
    }
    if !piece.is_empty() {
        pieces.push_back(piece);
    }
    pieces
}

/// A piece cut in two at the round boundary nearest its middle (by tokens); `None` for a
/// piece of one round.
pub fn halve(piece: &[Sized]) -> Option<(Vec<Sized>, Vec<Sized>)> {
    let rounds = rounds(piece);
    if rounds.len() < 2 {
        return None;
    }
    let total: u64 = piece.iter().map(|node| node.tokens).sum();
    let (mut first, mut tokens) = (Vec::new(), 0);
    for (index, round) in rounds.iter().enumerate() {
        let size: u64 = round.iter().map(|node| node.tokens).sum();
        let last = index + 1 == rounds.len();
        // A round goes to the first half while its middle is before the piece's.
        if !first.is_empty() && (last || tokens * 2 + size > total) {
            break;
        }
        tokens += size;
        first.extend_from_slice(round);
    }
    let second = piece[first.len()..].to_vec();
    Some((first, second))
}

/// The nodes in runs that each start at a prompt (the first run may start elsewhere: a
/// summary, or the tail of a round before the covered nodes).
fn rounds(nodes: &[Sized]) -> Vec<&[Sized]> {
    let mut rounds = Vec::new();
    let mut start = 0;
    for (index, node) in nodes.iter().enumerate() {
        if index > start && node.role == Role::User {
            rounds.push(&nodes[start..index]);
            start = index;
        }
    }
    if start < nodes.len() {
        rounds.push(&nodes[start..]);
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use Role::{Model, Summary, Tool, User};

    fn nodes(shape: &[(Role, u64)]) -> Vec<Sized> {
        shape
            .iter()
            .enumerate()
            .map(|(i, &(role, tokens))| Sized {
                id: i as NodeId + 1,
                role,
                tokens,
            })
            .collect()
    }

    fn ids(pieces: &VecDeque<Vec<Sized>>) -> Vec<Vec<NodeId>> {
        pieces
            .iter()
            .map(|p| p.iter().map(|n| n.id).collect())
            .collect()
    }

    #[test]
    fn pieces_fill_the_budget_by_whole_rounds_and_a_tool_chain_stays_in_one() {
        let covered = nodes(&[
            (Summary, 30),
            (User, 10),
            (Model, 20),
            (Tool, 40),
            (Model, 10),
            (User, 10),
            (Model, 10),
        ]);
        assert_eq!(ids(&split(&covered, None)), vec![vec![1, 2, 3, 4, 5, 6, 7]]);
        assert_eq!(
            ids(&split(&covered, Some(90))),
            vec![vec![1], vec![2, 3, 4, 5], vec![6, 7]]
        );
        assert_eq!(
            ids(&split(&covered, Some(100))),
            vec![vec![1], vec![2, 3, 4, 5, 6, 7]],
            "a piece may fill the budget exactly"
        );
        assert_eq!(
            ids(&split(&covered, Some(10))),
            vec![vec![1], vec![2, 3, 4, 5], vec![6, 7]],
            "a round over the budget is a piece of its own"
        );
    }

    #[test]
    fn a_piece_halves_at_a_round_boundary_and_one_round_does_not() {
        let piece = nodes(&[(User, 10), (Model, 10), (User, 10), (Model, 10), (User, 5)]);
        let (first, second) = halve(&piece).unwrap();
        assert_eq!(first.iter().map(|n| n.id).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(
            second.iter().map(|n| n.id).collect::<Vec<_>>(),
            vec![3, 4, 5]
        );
        assert_eq!(halve(&nodes(&[(User, 10), (Model, 10), (Tool, 5)])), None);
    }
}
