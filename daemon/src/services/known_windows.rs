//! The input windows of common models, as their vendors document them: what a model's
//! window is taken to be when the configuration's `[windows]` table does not name it and
//! its API does not say (OpenAI and Anthropic have no such call). A model not listed here
//! has no known window; nothing is guessed from a name's likeness.
//!
//! A listed name matches itself and its dated or versioned snapshots
//! (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`, `gemini-2.5-flash-preview-05-20`,
//! `gemini-2.0-flash-001`), never a variant with another name (`gemini-2.5-flash-image`,
//! `gpt-5-pro`).

/// Gemini 2.0 and 2.5's text models: `inputTokenLimit` 1,048,576.
const GEMINI: u64 = 1_048_576;
/// Claude's standard window (a larger one is a beta the request must ask for).
const CLAUDE: u64 = 200_000;
/// GPT-4.1's window.
const GPT_4_1: u64 = 1_047_576;
/// GPT-5's input: a 400,000-token window less its 128,000 tokens of output.
const GPT_5: u64 = 272_000;

/// Every known model and its window in input tokens.
const KNOWN: &[(&str, u64)] = &[
    ("gemini-2.5-pro", GEMINI),
    ("gemini-2.5-flash", GEMINI),
    ("gemini-2.5-flash-lite", GEMINI),
    ("gemini-2.0-flash", GEMINI),
    ("gemini-2.0-flash-lite", GEMINI),
    ("claude-opus-4-1", CLAUDE),
    ("claude-opus-4-0", CLAUDE),
    ("claude-opus-4", CLAUDE),
    ("claude-sonnet-4-5", CLAUDE),
    ("claude-sonnet-4-0", CLAUDE),
    ("claude-sonnet-4", CLAUDE),
    ("claude-haiku-4-5", CLAUDE),
    ("claude-3-7-sonnet", CLAUDE),
    ("claude-3-5-sonnet", CLAUDE),
    ("claude-3-5-haiku", CLAUDE),
    ("claude-3-opus", CLAUDE),
    ("claude-3-haiku", CLAUDE),
    ("gpt-4o", 128_000),
    ("gpt-4o-mini", 128_000),
    ("gpt-4.1", GPT_4_1),
    ("gpt-4.1-mini", GPT_4_1),
    ("gpt-4.1-nano", GPT_4_1),
    ("o3", 200_000),
    ("o3-mini", 200_000),
    ("o4-mini", 200_000),
    ("gpt-5", GPT_5),
    ("gpt-5-mini", GPT_5),
    ("gpt-5-nano", GPT_5),
];

/// The documented window of `model`, if it is a known model or one of its snapshots.
pub fn known_window(model: &str) -> Option<u64> {
    KNOWN
        .iter()
        .filter(|(name, _)| {
            model == *name
                || model
                    .strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(is_snapshot)
        })
        .map(|(_, tokens)| *tokens)
        .next()
}

/// Whether a name's tail marks a snapshot of the same model: dates, version numbers,
/// `preview`, `latest`, `exp`, nothing else.
fn is_snapshot(tail: &str) -> bool {
    tail.split('-').all(|segment| {
        matches!(segment, "preview" | "latest" | "exp")
            || (!segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_and_their_snapshots_have_their_documented_window() {
        for (model, tokens) in [
            ("gemini-2.5-flash", 1_048_576),
            ("gemini-2.5-flash-preview-05-20", 1_048_576),
            ("gemini-2.0-flash-001", 1_048_576),
            ("gemini-2.5-flash-lite", 1_048_576),
            ("claude-sonnet-4-5-20250929", 200_000),
            ("claude-3-5-haiku-latest", 200_000),
            ("gpt-4o-2024-08-06", 128_000),
            ("gpt-4o-mini", 128_000),
            ("gpt-4.1-nano-2025-04-14", 1_047_576),
            ("o3", 200_000),
            ("o4-mini-2025-04-16", 200_000),
            ("gpt-5", 272_000),
            ("gpt-5-mini-2025-08-07", 272_000),
        ] {
            assert_eq!(known_window(model), Some(tokens), "{model}");
        }
    }

    #[test]
    fn other_models_and_other_variants_are_unknown() {
        for model in [
            "gemini-2.5-flash-image-preview",
            "gemini-2.5-flash-preview-tts",
            "gpt-5-pro",
            "gpt-4o-audio-preview",
            "o3-pro-x",
            "qwen2.5:7b",
            "fake-model",
            "",
        ] {
            assert_eq!(known_window(model), None, "{model}");
        }
    }
}
