//! The price table: what a million tokens of a model cost, from the configuration file's
//! `[prices."MODEL"]` tables, so `usage`, `history`, the chat's footer and `status` can
//! show money beside tokens. Optional: a model without a price shows tokens only.
//!
//! ```toml
//! [prices."gemini-2.5-pro"]          # or "PROVIDER/MODEL", which wins over "MODEL"
//! input = 1.25                       # per million tokens of context
//! output = 10.0                      # per million tokens of answer
//! cached = 0.31                      # context read from the prompt cache (default: input)
//! thinking = 10.0                    # thinking tokens (default: output)
//! ```

use std::collections::BTreeMap;

use anyhow::bail;
use serde::{Deserialize, Serialize};

use crate::model::ModelUsage;

/// One model's prices, per million tokens, as written.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Context tokens.
    pub input: f64,
    /// Answer tokens.
    pub output: f64,
    /// Context tokens read from the provider's prompt cache; `input` when not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached: Option<f64>,
    /// Thinking tokens; `output` when not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<f64>,
}

/// Every `[prices."MODEL"]` table, by the name written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Prices(BTreeMap<String, Price>);

impl Prices {
    /// Refuses a price that is negative or not a number, naming it.
    pub fn check(&self) -> anyhow::Result<()> {
        for (model, price) in &self.0 {
            let given = [
                Some(price.input),
                Some(price.output),
                price.cached,
                price.thinking,
            ];
            if given
                .into_iter()
                .flatten()
                .any(|p| !p.is_finite() || p < 0.0)
            {
                bail!(
                    "[prices.\"{model}\"]: prices are numbers of zero or more, per million tokens"
                );
            }
        }
        Ok(())
    }

    /// Whether the table has any price at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The price of `model` (`PROVIDER/MODEL`): its own entry, else the bare model's.
    pub fn of(&self, model: &str) -> Option<&Price> {
        self.0.get(model).or_else(|| {
            let (_, bare) = model.split_once('/')?;
            self.0.get(bare)
        })
    }

    /// What `usage`'s tokens cost, if its model has a price.
    pub fn cost(&self, usage: &ModelUsage) -> Option<f64> {
        let price = self.of(&usage.model)?;
        let per_token = |per_million: f64, tokens: u64| per_million * tokens as f64 / 1e6;
        let uncached = usage.input.saturating_sub(usage.cached);
        Some(
            per_token(price.input, uncached)
                + per_token(price.cached.unwrap_or(price.input), usage.cached)
                + per_token(price.output, usage.output)
                + per_token(price.thinking.unwrap_or(price.output), usage.thinking),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Prices {
        toml::from_str(text).expect("a price table")
    }

    fn usage(model: &str) -> ModelUsage {
        ModelUsage {
            model: model.into(),
            answers: 1,
            input: 3_000_000,
            cached: 1_000_000,
            output: 1_000_000,
            thinking: 500_000,
        }
    }

    #[test]
    fn cached_and_thinking_tokens_cost_their_own_price_or_input_and_output_s() {
        let prices = table(
            "[\"gemini-2.5-pro\"]\ninput = 1.25\noutput = 10.0\ncached = 0.25\n\
             [\"local/qwen\"]\ninput = 1.0\noutput = 2.0\n",
        );
        let pro = prices.cost(&usage("gemini/gemini-2.5-pro")).unwrap();
        assert!(
            (pro - (2.0 * 1.25 + 0.25 + 10.0 + 5.0)).abs() < 1e-9,
            "{pro}"
        );
        let qwen = prices.cost(&usage("local/qwen")).unwrap();
        assert!((qwen - (3.0 + 2.0 + 1.0)).abs() < 1e-9, "{qwen}");
        assert_eq!(prices.cost(&usage("openai/gpt-5")), None);
    }

    #[test]
    fn a_provider_s_own_entry_wins_over_the_bare_model_s() {
        let prices =
            table("[\"m\"]\ninput = 1.0\noutput = 1.0\n[\"p/m\"]\ninput = 9.0\noutput = 9.0\n");
        assert_eq!(prices.of("p/m").map(|p| p.input), Some(9.0));
        assert_eq!(prices.of("q/m").map(|p| p.input), Some(1.0));
    }

    #[test]
    fn negative_prices_and_unknown_keys_are_refused() {
        assert!(
            table("[\"m\"]\ninput = -1.0\noutput = 1.0\n")
                .check()
                .is_err()
        );
        assert!(
            toml::from_str::<Prices>("[\"m\"]\ninput = 1.0\noutput = 1.0\nimput = 2.0\n").is_err()
        );
    }
}
