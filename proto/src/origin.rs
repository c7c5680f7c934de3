//! Where a session came from, as a kind: made through omnid, recorded from the proxy, or
//! imported. Listings filter by it and summaries carry it.

use serde::{Deserialize, Serialize};

/// Where a session came from.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OriginKind {
    /// Made by a client of omnid (omnictl, HTTP).
    #[default]
    Own,
    /// Recorded from a client of the proxy.
    Proxy,
    /// Imported from a file.
    Import,
}

impl OriginKind {
    /// The kind of a session with this origin (`None`: one of omnid's own).
    pub fn of(origin: Option<&str>) -> Self {
        match origin {
            None => Self::Own,
            Some(text) if text.starts_with("import") => Self::Import,
            Some(_) => Self::Proxy,
        }
    }

    /// Reads `own`, `proxy` or `import`.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "own" => Ok(Self::Own),
            "proxy" => Ok(Self::Proxy),
            "import" => Ok(Self::Import),
            _ => Err(format!(
                "'{text}' is not an origin; use own, proxy or import"
            )),
        }
    }

    /// The name `parse` reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::Own => "own",
            Self::Proxy => "proxy",
            Self::Import => "import",
        }
    }
}
