//! What a query may be before it reaches tantivy's parser, which recurses once per nested
//! group: a few thousand brackets overflow a thread's stack and abort the whole daemon.
//! Queries are bounded in length and in nesting, and one over either bound is refused with
//! a sentence naming the bound, so no search can stop omnid.

/// The most characters of a query.
pub const MAX_QUERY_CHARS: usize = 1_000;

/// The most brackets open at once in a query (counted everywhere, quotes included: a bound
/// that tantivy's own reading of quotes cannot get around).
pub const MAX_QUERY_NESTING: usize = 8;

/// Why a query is refused before it is parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryRefused {
    /// Too long.
    #[error("the search is {0} characters long; at most {MAX_QUERY_CHARS} are allowed")]
    TooLong(usize),
    /// Too deeply nested.
    #[error("the search nests {0} brackets deep; at most {MAX_QUERY_NESTING} are allowed")]
    TooDeep(usize),
}

/// Refuses a query tantivy should not be given.
pub fn check(text: &str) -> Result<(), QueryRefused> {
    let chars = text.chars().count();
    if chars > MAX_QUERY_CHARS {
        return Err(QueryRefused::TooLong(chars));
    }
    let deepest = nesting(text);
    if deepest > MAX_QUERY_NESTING {
        return Err(QueryRefused::TooDeep(deepest));
    }
    Ok(())
}

/// The most brackets (round, square or curly) open at once.
fn nesting(text: &str) -> usize {
    let (mut open, mut deepest) = (0usize, 0usize);
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => {
                open += 1;
                deepest = deepest.max(open);
            }
            ')' | ']' | '}' => open = open.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn length_and_nesting_are_bounded_and_named() {
        assert_eq!(check("a (b OR (c -d))"), Ok(()));
        let deep = format!("{}x{}", "(".repeat(1_000), ")".repeat(1_000));
        assert_eq!(check(&deep), Err(QueryRefused::TooLong(2_001)));
        let deep = format!("{}x", "-(".repeat(9));
        assert_eq!(check(&deep), Err(QueryRefused::TooDeep(9)));
        assert!(check(&"-(".repeat(3_000)).is_err());
        let said = QueryRefused::TooDeep(9).to_string();
        assert!(said.contains("at most 8"), "{said}");
        // Closing brackets first never make a query look shallower than it is.
        assert_eq!(
            check(&format!("{}{}", ")".repeat(50), "(".repeat(9))),
            Err(QueryRefused::TooDeep(9))
        );
    }
}
