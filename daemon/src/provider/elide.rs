//! Large tool results on their way to a model: a function response over the configured
//! size is sent as its beginning and its end around a marked elision, so one huge tool
//! output cannot fill a session's context window. Only what a model sees is cut: the
//! stored node keeps the result whole (`history --full`, search and exports show it all).
//!
//! The cut result is `{"output": "<head>…[omni: N of M bytes of this tool result elided;
//! the session keeps it whole]…<tail>"}`: an object, as Gemini's `functionResponse.response`
//! must be, and text to OpenAI's and Anthropic's tool results, which take any string.

use omni_proto::thousands;

/// The result `response_json` as a model should see it when it is over `max` bytes (0:
/// never cut): about `max` bytes of JSON holding its head and tail around a marked
/// elision. `None` when it goes whole.
pub fn elided(response_json: &str, max: usize) -> Option<String> {
    let total = response_json.len();
    if max == 0 || total <= max {
        return None;
    }
    // Escaping may lengthen what is kept; the marker's own length is counted first.
    let marker = |elided: usize| {
        format!(
            "…[omni: {} of {} bytes of this tool result elided; the session keeps it whole]…",
            thousands(elided as u64),
            thousands(total as u64)
        )
    };
    let budget = max.saturating_sub(marker(total).len() + r#"{"output":""}"#.len());
    let head = floor_boundary(response_json, budget / 2);
    let tail = ceil_boundary(response_json, total - (budget - budget / 2));
    let kept = &response_json[..head];
    let end = &response_json[tail.max(head)..];
    let elided = total - kept.len() - end.len();
    let output = format!("{kept}{}{end}", marker(elided));
    Some(serde_json::json!({ "output": output }).to_string())
}

/// The largest char boundary of `text` at or below `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or above `at`.
fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn output(cut: &str) -> String {
        let value: Value = serde_json::from_str(cut).expect("valid JSON");
        value["output"]
            .as_str()
            .expect("a string output")
            .to_string()
    }

    #[test]
    fn a_result_within_the_limit_or_with_no_limit_goes_whole() {
        assert_eq!(elided(r#"{"output":"small"}"#, 1024), None);
        assert_eq!(elided(&"x".repeat(10_000), 0), None);
        let exact = "y".repeat(100);
        assert_eq!(elided(&exact, 100), None);
    }

    #[test]
    fn a_large_result_keeps_its_head_and_tail_around_a_marked_elision() {
        let big = format!(r#"{{"output":"BEGIN{}END"}}"#, "0123456789".repeat(200_000));
        let cut = elided(&big, 4096).expect("cut");
        assert!(cut.len() <= 4096 + 64, "about the limit: {}", cut.len());
        let text = output(&cut);
        assert!(text.starts_with(r#"{"output":"BEGIN0123"#), "{text}");
        assert!(text.ends_with(r#"789END"}"#), "{text}");
        let (head, rest) = text.split_once('…').expect("an opening mark");
        let (marker, tail) = rest.rsplit_once('…').expect("a closing mark");
        let said = marker
            .strip_prefix("[omni: ")
            .and_then(|m| m.split_once(" of "))
            .map(|(n, _)| n.replace(',', "").parse::<usize>().unwrap())
            .expect("the count elided");
        assert_eq!(head.len() + said + tail.len(), big.len(), "{marker}");
        let whole = format!(
            "of {} bytes of this tool result elided",
            thousands(big.len() as u64)
        );
        assert!(marker.contains(&whole), "{marker}");
    }

    #[test]
    fn the_cut_never_splits_a_character() {
        let big = "é€😀".repeat(50_000);
        for max in [200, 201, 202, 203, 1000, 1001, 4097] {
            let cut = elided(&big, max).expect("cut");
            let text = output(&cut);
            assert!(
                text.starts_with('é') && text.ends_with('😀'),
                "{max}: {text}"
            );
        }
    }

    #[test]
    fn a_limit_smaller_than_the_marker_keeps_the_marker_alone() {
        let cut = elided(&"z".repeat(5000), 10).expect("cut");
        let text = output(&cut);
        assert!(text.starts_with("…[omni: 5,000 of 5,000 bytes"), "{text}");
    }
}
