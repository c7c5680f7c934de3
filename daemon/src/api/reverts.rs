//! Why each node out of the context is out: the latest move of the log that took it out,
//! or its being an interrupted answer. One pass over the move log; each move costs only
//! the nodes it took out (plus the walk to the common ancestor).

use omni_proto::RevertReason;

use crate::model::{MoveKind, MoveRecord, NodeRecord};
use crate::session::tree::{NodeId, Tree};

/// What a kind of move means for the nodes it takes out of the context.
fn reason_of(kind: MoveKind) -> RevertReason {
    match kind {
        MoveKind::Undo => RevertReason::Undone,
        MoveKind::Back => RevertReason::Rewound,
        MoveKind::DeepRollback | MoveKind::ClearTurn => RevertReason::Recovered,
        MoveKind::Checkout
        | MoveKind::Redo
        | MoveKind::Prompt
        | MoveKind::Answer
        | MoveKind::ToolResults
        | MoveKind::Ignore
        | MoveKind::Retry
        | MoveKind::Compact => RevertReason::OtherBranch,
    }
}

/// For every node (index = number - 1): why it is out of the context, or `None` when it
/// is on the path to the head.
pub fn revert_reasons(
    tree: &Tree,
    nodes: &[NodeRecord],
    moves: &[MoveRecord],
) -> Vec<Option<RevertReason>> {
    let interrupted = |id: NodeId| {
        nodes
            .get(id as usize - 1)
            .and_then(|n| n.model.as_ref())
            .is_some_and(|m| m.interrupted)
    };
    revert_reasons_with(tree, moves, interrupted)
}

/// [`revert_reasons`], asking `interrupted` about each node out of the context instead of
/// reading every node (a search reads only the nodes it hit).
pub fn revert_reasons_with(
    tree: &Tree,
    moves: &[MoveRecord],
    mut interrupted: impl FnMut(NodeId) -> bool,
) -> Vec<Option<RevertReason>> {
    let mut last_taken_out: Vec<Option<RevertReason>> = vec![None; tree.len() as usize];
    for step in moves {
        if !(tree.contains(step.from) && tree.contains(step.to)) {
            continue;
        }
        for node in tree.left_by_move(step.from, step.to) {
            last_taken_out[node as usize - 1] = Some(reason_of(step.kind));
        }
    }
    let on_path = tree.head_path_mask();
    (1..=tree.len())
        .map(|id: NodeId| {
            let index = id as usize - 1;
            if on_path[index] {
                return None;
            }
            Some(if interrupted(id) {
                RevertReason::Interrupted
            } else {
                last_taken_out[index].unwrap_or(RevertReason::OtherBranch)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ModelInfo, Part, ROOT, Role};

    struct Session {
        tree: Tree,
        nodes: Vec<NodeRecord>,
        moves: Vec<MoveRecord>,
    }

    impl Session {
        fn new() -> Self {
            Self {
                tree: Tree::new(),
                nodes: Vec::new(),
                moves: Vec::new(),
            }
        }

        /// Adds a node under `parent`; `interrupted` marks a cut-short answer.
        fn node(&mut self, parent: NodeId, role: Role, interrupted: bool) -> NodeId {
            let id = self.tree.push(parent, role).expect("parent exists");
            let model = (role == Role::Model).then(|| ModelInfo {
                model: "m".into(),
                model_version: None,
                finish_reason: None,
                usage: None,
                attempts: 1,
                latency_ms: 0,
                interrupted,
                provider: "gemini".into(),
            });
            self.nodes.push(NodeRecord {
                id,
                parent,
                role,
                parts: vec![Part::text("x")],
                created_at_ms: 0,
                model,
            });
            id
        }

        /// Moves the head as the daemon does, logging the move.
        fn moved(&mut self, kind: MoveKind, to: NodeId) {
            let from = self.tree.head();
            self.moves.push(MoveRecord {
                seq: self.moves.len() as u64 + 1,
                kind,
                from,
                to,
                at_ms: 0,
                prev_redoable: None,
                redoes: None,
            });
            self.tree.set_head(to).expect("node exists");
        }

        /// A prompt and its answer, the head at the answer.
        fn round(&mut self, parent: NodeId) -> (NodeId, NodeId) {
            let prompt = self.node(parent, Role::User, false);
            self.moved(MoveKind::Prompt, prompt);
            let answer = self.node(prompt, Role::Model, false);
            self.moved(MoveKind::Answer, answer);
            (prompt, answer)
        }

        fn reasons(&self) -> Vec<Option<RevertReason>> {
            revert_reasons(&self.tree, &self.nodes, &self.moves)
        }
    }

    #[test]
    fn each_node_out_of_the_context_says_which_move_took_it_out() {
        use RevertReason::*;
        let mut s = Session::new();
        let (p1, a1) = s.round(ROOT); // 1, 2
        let (p2, _a2) = s.round(a1); // 3, 4
        s.moved(MoveKind::Undo, p2); // 4 undone
        let (_p3, a3) = s.round(p2); // 5, 6
        s.moved(MoveKind::Back, a1); // 5, 6 rewound (3 too)
        let cut = s.node(a1, Role::User, false); // 7
        s.moved(MoveKind::Prompt, cut);
        s.node(cut, Role::Model, true); // 8: an interrupted answer
        s.moved(MoveKind::Checkout, p1); // 7 on another branch
        assert_eq!(s.tree.head(), p1);
        assert_eq!(
            s.reasons(),
            [
                None,
                Some(OtherBranch), // 2: the answer the checkout left
                Some(Rewound),
                Some(Undone),
                Some(Rewound),
                Some(Rewound),
                Some(OtherBranch),
                Some(Interrupted),
            ]
        );
        // Redo-like moves bring nodes back: none is marked then.
        s.moved(MoveKind::Redo, a3);
        let reasons = s.reasons();
        assert_eq!(&reasons[..6], [None, None, None, Some(Undone), None, None]);
    }

    #[test]
    fn recovery_moves_are_named_as_such() {
        let mut s = Session::new();
        let (_p1, a1) = s.round(ROOT);
        let (p2, a2) = s.round(a1);
        s.moved(MoveKind::ClearTurn, p2);
        assert_eq!(s.reasons()[a2 as usize - 1], Some(RevertReason::Recovered));
        s.moved(MoveKind::DeepRollback, a1);
        assert_eq!(s.reasons()[p2 as usize - 1], Some(RevertReason::Recovered));
    }
}
