//! Which family of wire formats a provider speaks.

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Gemini's `models/{model}:streamGenerateContent`.
    Gemini,
    /// OpenAI's `chat/completions` (and every server that copies it).
    OpenAi,
}

impl Kind {
    /// The name the configuration uses (`kind = "openai"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Gemini => "gemini",
            Kind::OpenAi => "openai",
        }
    }

    /// Parses a configuration's `kind`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "gemini" => Some(Kind::Gemini),
            "openai" => Some(Kind::OpenAi),
            _ => None,
        }
    }
}
