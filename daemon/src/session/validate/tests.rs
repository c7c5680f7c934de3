use super::*;
use crate::model::NodeRecord;
use crate::model::{Part, Role};

fn node(id: u64, role: Role, parts: Vec<PartContent>) -> NodeRecord {
    NodeRecord {
        id,
        parent: id - 1,
        role,
        parts: parts
            .into_iter()
            .map(|content| Part {
                content,
                thought_signature: None,
            })
            .collect(),
        created_at_ms: 0,
        model: None,
    }
}

fn text(t: &str) -> PartContent {
    PartContent::Text(t.into())
}

fn call(name: &str, id: Option<&str>) -> PartContent {
    PartContent::FunctionCall {
        id: id.map(str::to_string),
        name: name.into(),
        args_json: "{}".into(),
    }
}

fn result(name: &str, id: Option<&str>) -> PartContent {
    PartContent::FunctionResponse {
        id: id.map(str::to_string),
        name: name.into(),
        response_json: "{}".into(),
    }
}

fn check(nodes: &[NodeRecord]) -> Result<(), Violation> {
    validate_nodes(nodes)
}

#[test]
fn a_valid_tool_loop_passes() {
    let history = [
        node(1, Role::User, vec![text("weather and time?")]),
        node(
            2,
            Role::Model,
            vec![call("weather", Some("a")), call("time", Some("b"))],
        ),
        node(
            3,
            Role::Tool,
            vec![result("weather", Some("a")), result("time", Some("b"))],
        ),
    ];
    assert_eq!(check(&history), Ok(()));
}

#[test]
fn fewer_results_than_calls_names_both_nodes() {
    let history = [
        node(1, Role::User, vec![text("q")]),
        node(
            2,
            Role::Model,
            vec![call("weather", None), call("time", None)],
        ),
        node(3, Role::Tool, vec![result("weather", None)]),
    ];
    let v = check(&history).unwrap_err();
    assert_eq!(
        v.reason,
        "node 2 (model) calls 2 functions (weather, time) but node 3 (tool) answers 1 (weather)"
    );
    assert_eq!(v.nodes, [2, 3]);
}

#[test]
fn names_and_ids_must_match_in_order() {
    let swapped = [
        node(1, Role::User, vec![text("q")]),
        node(
            2,
            Role::Model,
            vec![call("weather", None), call("time", None)],
        ),
        node(
            3,
            Role::Tool,
            vec![result("time", None), result("weather", None)],
        ),
    ];
    assert!(
        check(&swapped)
            .unwrap_err()
            .reason
            .contains("answers time where node 2 (model) called weather")
    );
    let wrong_id = [
        node(1, Role::User, vec![text("q")]),
        node(2, Role::Model, vec![call("weather", Some("a"))]),
        node(3, Role::Tool, vec![result("weather", Some("z"))]),
    ];
    assert!(check(&wrong_id).unwrap_err().reason.contains("(id z)"));
}

#[test]
fn calls_without_results_and_results_without_calls_are_refused() {
    let unanswered = [
        node(1, Role::User, vec![text("q")]),
        node(2, Role::Model, vec![call("weather", None)]),
        node(3, Role::User, vec![text("never mind")]),
    ];
    let v = check(&unanswered).unwrap_err();
    assert!(
        v.reason
            .contains("calls 1 function (weather) but content 3 answers 0"),
        "{}",
        v.reason
    );
    let orphan = [
        node(1, Role::User, vec![text("q")]),
        node(2, Role::Model, vec![text("a")]),
        node(3, Role::Tool, vec![result("weather", None)]),
    ];
    assert!(
        check(&orphan)
            .unwrap_err()
            .reason
            .contains("follow no function call")
    );
    let pending = [
        node(1, Role::User, vec![text("q")]),
        node(2, Role::Model, vec![call("weather", None)]),
    ];
    assert!(
        check(&pending)
            .unwrap_err()
            .reason
            .contains("no function results follow")
    );
}

#[test]
fn empty_parts_and_wrong_ends_are_refused() {
    let empty = [node(1, Role::User, vec![text("")])];
    assert_eq!(
        check(&empty).unwrap_err().reason,
        "node 1 (user) has an empty part"
    );
    let ends_with_model = [
        node(1, Role::User, vec![text("q")]),
        node(2, Role::Model, vec![text("a")]),
    ];
    assert!(
        check(&ends_with_model)
            .unwrap_err()
            .reason
            .contains("ends with the model's turn")
    );
    let starts_with_model = [node(1, Role::Model, vec![text("a")])];
    assert!(
        check(&starts_with_model)
            .unwrap_err()
            .reason
            .contains("does not start with a user turn")
    );
    assert!(check(&[]).is_err());
}

#[test]
fn an_empty_text_part_carrying_a_signature_is_fine() {
    let mut answer = node(2, Role::Model, vec![text("a"), text("")]);
    answer.parts[1].thought_signature = Some("sig".into());
    let history = [
        node(1, Role::User, vec![text("q")]),
        answer,
        node(3, Role::User, vec![text("q2")]),
    ];
    assert_eq!(check(&history), Ok(()));
}

/// Every history of up to five nodes drawn from a few kinds (text, empty text, calls,
/// results, nothing): checking only the end after a start that passed gives exactly what
/// checking the whole gives, reason and nodes included.
#[test]
fn checking_after_a_start_that_passed_answers_as_checking_the_whole() {
    let kinds: Vec<(Role, Vec<PartContent>)> = vec![
        (Role::User, vec![text("q")]),
        (Role::User, vec![text("")]),
        (Role::Model, vec![text("a")]),
        (Role::Model, vec![]),
        (Role::Model, vec![call("f", None)]),
        (Role::Model, vec![call("f", Some("1")), call("g", None)]),
        (Role::Tool, vec![result("f", None)]),
        (Role::Tool, vec![result("f", Some("2")), result("g", None)]),
        (Role::Tool, vec![result("g", None)]),
    ];
    let mut compared = 0;
    let mut history: Vec<usize> = Vec::new();
    loop {
        let shapes: Vec<Shape> = history
            .iter()
            .enumerate()
            .map(|(i, &k)| Shape::of(&node(i as u64 + 1, kinds[k].0, kinds[k].1.clone())))
            .collect();
        let whole = validate(&shapes);
        for passed in (1..=shapes.len()).filter(|&n| validate(&shapes[..n]).is_ok()) {
            for checked in 1..=passed {
                assert_eq!(
                    validate_after(&shapes, checked),
                    whole,
                    "{history:?} after {checked}"
                );
                compared += 1;
            }
        }
        // The next history, counting in base `kinds.len()` up to five nodes.
        match history.iter().rposition(|&k| k + 1 < kinds.len()) {
            Some(at) => {
                history[at] += 1;
                history[at + 1..].iter_mut().for_each(|k| *k = 0);
            }
            None if history.len() < 5 => history = vec![0; history.len() + 1],
            None => break,
        }
    }
    assert!(compared > 10_000, "only {compared} comparisons");
}
