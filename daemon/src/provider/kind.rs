//! Which family of wire formats a provider speaks, and the registry of families: adding a
//! family is a variant here and an arm of [`Kind::family`].

use super::anthropic::family::AnthropicFamily;
use super::family::Family;
use super::gemini::family::GeminiFamily;
use super::openai::family::OpenAiFamily;
use super::signs::ErrorSigns;

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Gemini's `models/{model}:streamGenerateContent`.
    Gemini,
    /// OpenAI's `chat/completions` (and every server that copies it).
    OpenAi,
    /// Anthropic's Messages API, `v1/messages`.
    Anthropic,
}

impl Kind {
    /// Every family, in the order messages list them.
    pub const ALL: [Kind; 3] = [Kind::Gemini, Kind::OpenAi, Kind::Anthropic];

    /// What this family is and does: the one place a kind is matched.
    pub fn family(self) -> &'static dyn Family {
        match self {
            Kind::Gemini => &GeminiFamily,
            Kind::OpenAi => &OpenAiFamily,
            Kind::Anthropic => &AnthropicFamily,
        }
    }

    /// The name the configuration uses (`kind = "openai"`).
    pub fn as_str(self) -> &'static str {
        self.family().name()
    }

    /// Parses a configuration's `kind`.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == text)
    }

    /// What any family recognises in an error body: an error carries no family, and
    /// gateways relay one family's errors in front of another's API.
    pub fn error_signs(body: &str) -> ErrorSigns {
        Self::ALL
            .iter()
            .map(|kind| kind.family().recognise(body))
            .fold(ErrorSigns::default(), ErrorSigns::or)
    }

    /// Every family's name, quoted, as a message lists them (`` `a`, `b` or `c` ``).
    pub fn choices() -> String {
        let names: Vec<String> = Self::ALL
            .iter()
            .map(|kind| format!("`{}`", kind.as_str()))
            .collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_is_found_by_its_own_name_and_no_two_share_one() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(Kind::parse("gemini"), Some(Kind::Gemini));
        assert_eq!(Kind::parse("openai"), Some(Kind::OpenAi));
        assert_eq!(Kind::parse("anthropic"), Some(Kind::Anthropic));
        assert_eq!(Kind::parse("no-such-family"), None);
        let choices = Kind::choices();
        for kind in Kind::ALL {
            assert!(
                choices.contains(&format!("`{}`", kind.as_str())),
                "{choices}"
            );
        }
        assert!(choices.ends_with(&format!(
            " or `{}`",
            Kind::ALL[Kind::ALL.len() - 1].as_str()
        )));
    }
}
