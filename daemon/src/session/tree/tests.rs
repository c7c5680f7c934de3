//! The tree's rules, each checked on a small tree.

use super::*;
use Role::{Model, Tool, User};

/// Builds a linear conversation of the given roles and puts the head at its end.
fn linear(roles: &[Role]) -> Tree {
    let mut tree = Tree::new();
    let mut parent = ROOT;
    for &role in roles {
        parent = tree.push(parent, role).unwrap();
    }
    tree.set_head(parent).unwrap();
    tree
}

#[test]
fn undo_keeps_the_prompt_and_drops_the_answer() {
    let tree = linear(&[User, Model, User, Model]);
    assert_eq!(tree.undo_target(), Ok(3));
}

#[test]
fn undo_drops_a_whole_tool_chain() {
    // prompt, call, results, continuation
    let tree = linear(&[User, Model, User, Model, Tool, Model]);
    assert_eq!(tree.undo_target(), Ok(3));
}

#[test]
fn undo_without_an_answer_is_refused() {
    let tree = linear(&[User, Model, User]);
    assert_eq!(
        tree.undo_target(),
        Err(TreeError::NoAnswerToUndo { prompt: 3 })
    );
    assert_eq!(Tree::new().undo_target(), Err(TreeError::NothingToUndo));
}

#[test]
fn back_drops_the_latest_round() {
    let tree = linear(&[User, Model, User, Model]);
    assert_eq!(tree.back_target(), Ok(2));
    let tree = linear(&[User, Model]);
    assert_eq!(tree.back_target(), Ok(ROOT));
    let tree = linear(&[User, Model, User, Model, Tool, Model]);
    assert_eq!(
        tree.back_target(),
        Ok(2),
        "the tool chain goes with its prompt"
    );
}

#[test]
fn a_round_starts_before_its_prompt() {
    let tree = linear(&[User, Model, Tool, Model, User, Model]);
    assert_eq!(
        tree.round_start(3),
        Ok(ROOT),
        "a tool node belongs to the round of prompt 1"
    );
    assert_eq!(tree.round_start(6), Ok(4));
    assert_eq!(tree.round_start(5), Ok(4), "a prompt opens its own round");
    assert_eq!(tree.round_start(ROOT), Err(TreeError::AtStart));
}

#[test]
fn back_at_the_start_is_refused() {
    assert_eq!(Tree::new().back_target(), Err(TreeError::AtStart));
}

#[test]
fn clear_drops_one_node() {
    let tree = linear(&[User, Model, Tool]);
    assert_eq!(tree.clear_target(), Ok(2));
    assert_eq!(Tree::new().clear_target(), Err(TreeError::AtStart));
}

#[test]
fn a_new_prompt_after_a_rewind_forks_and_both_leaves_stay() {
    let mut tree = linear(&[User, Model, User, Model]);
    tree.set_head(tree.back_target().unwrap()).unwrap();
    let fork = tree.push(tree.head(), User).unwrap();
    tree.set_head(fork).unwrap();
    assert_eq!(tree.leaves(), vec![4, 5]);
    assert_eq!(tree.path_to(5), vec![1, 2, 5]);
    assert_eq!(tree.head_path_mask(), vec![true, true, false, false, true]);
    assert!(tree.is_on_path_to(2, 4));
    assert!(!tree.is_on_path_to(5, 4));
    assert_eq!(tree.fork_point(4), Some(2));
    assert_eq!(tree.fork_point(5), Some(2));
    assert_eq!(tree.left_by_move(4, 5), vec![4, 3]);
    assert_eq!(tree.left_by_move(5, 1), vec![5, 2]);
    assert_eq!(tree.left_by_move(1, 5), Vec::<NodeId>::new());
}

#[test]
fn a_single_branch_forks_nowhere_and_branches_from_the_start_fork_at_0() {
    let mut tree = linear(&[User, Model]);
    assert_eq!(tree.fork_point(2), None);
    tree.push(ROOT, User).unwrap();
    assert_eq!(tree.fork_point(2), Some(ROOT));
    assert_eq!(tree.fork_point(3), Some(ROOT));
}

#[test]
fn unknown_nodes_are_refused() {
    let mut tree = linear(&[User]);
    assert_eq!(tree.set_head(9), Err(TreeError::UnknownNode(9)));
    assert_eq!(tree.push(7, User), Err(TreeError::UnknownNode(7)));
    assert!(tree.set_head(ROOT).is_ok());
}

/// A session of `rounds` prompt-answer rounds, the head at its end.
fn rounds(rounds: usize) -> Tree {
    linear(&[User, Model].repeat(rounds))
}

#[test]
fn a_compaction_covers_all_but_the_kept_rounds_and_the_context_starts_at_its_summary() {
    let mut tree = rounds(5); // 1..=10
    let plan = tree.compaction_plan(2).unwrap();
    assert_eq!(plan.covers, (1..=6).collect::<Vec<_>>());
    assert_eq!(plan.resumes_at, Some(7));
    let summary = tree.push_summary(10, plan.resumes_at).unwrap();
    tree.set_head(summary).unwrap();
    assert_eq!(tree.context_path(summary), vec![11, 7, 8, 9, 10]);
    let prompt = tree.push(summary, User).unwrap();
    assert_eq!(tree.context_path(prompt), vec![11, 7, 8, 9, 10, 12]);
    assert_eq!(
        tree.path_to(prompt).len(),
        12,
        "the covered nodes stay on the path"
    );
    assert_eq!(tree.undo_target(), Ok(10), "undo takes the compaction back");
}

#[test]
fn a_second_compaction_covers_the_first_summary_and_keeps_only_rounds_after_it() {
    let mut tree = rounds(3); // 1..=6
    let first = tree.push_summary(6, Some(5)).unwrap(); // 7
    let mut at = first;
    for role in [User, Model, User, Model] {
        at = tree.push(at, role).unwrap(); // 8..=11
    }
    tree.set_head(at).unwrap();
    let plan = tree.compaction_plan(1).unwrap();
    assert_eq!(plan.covers, vec![7, 5, 6, 8, 9]);
    assert_eq!(plan.resumes_at, Some(10));
    let plan = tree.compaction_plan(5).unwrap();
    assert_eq!(
        plan.covers,
        vec![7, 5, 6],
        "kept rounds never reach past a summary"
    );
    assert_eq!(plan.resumes_at, Some(8));
    let second = tree.push_summary(at, Some(10)).unwrap();
    assert_eq!(tree.context_path(second), vec![12, 10, 11]);
}

#[test]
fn a_pending_prompt_is_always_kept_and_a_tool_chain_never_cut() {
    let tree = linear(&[User, Model, User, Model, Tool, Model, User]);
    let plan = tree.compaction_plan(0).unwrap();
    assert_eq!(plan.resumes_at, Some(7));
    let plan = tree.compaction_plan(1).unwrap();
    assert_eq!(plan.covers, (1..=6).collect::<Vec<_>>());
    let plan = tree.compaction_plan(2).unwrap();
    assert_eq!(
        plan.covers,
        vec![1, 2],
        "the tool chain goes with its prompt"
    );
    assert_eq!(
        tree.compaction_plan(3),
        Err(TreeError::NothingToCompact { keep: 3 })
    );
}

#[test]
fn an_answer_to_a_summary_undoes_to_the_summary_and_bad_summaries_are_refused() {
    let mut tree = rounds(2);
    let summary = tree.push_summary(4, Some(3)).unwrap();
    let answer = tree.push(summary, Model).unwrap();
    tree.set_head(answer).unwrap();
    assert_eq!(tree.undo_target(), Ok(summary));
    assert_eq!(tree.push_summary(4, Some(6)), Err(TreeError::NotKept(6)));
    assert_eq!(tree.push_summary(2, Some(3)), Err(TreeError::NotKept(3)));
    assert_eq!(
        tree.push_summary(4, Some(ROOT)),
        Err(TreeError::NotKept(ROOT))
    );
}

#[test]
fn depth_and_path_agree() {
    let tree = linear(&[User, Model, User, Model, User]);
    for node in 1..=tree.len() {
        assert_eq!(tree.path_to(node).len() as u32, tree.depth(node));
    }
}
