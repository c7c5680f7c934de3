//! Terminal styling: ANSI codes on a colour terminal, nothing otherwise (`NO_COLOR`, pipes,
//! files). The `[ REVERTED ]` prefix is always printed, so meaning never depends on colour.

use std::io::IsTerminal;

/// Whether and how to decorate output.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    color: bool,
}

impl Style {
    /// Colour exactly when asked.
    pub fn new(color: bool) -> Self {
        Self { color }
    }

    /// Colour if the stream is a terminal and `NO_COLOR` is unset or empty.
    pub fn detect(is_terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self::new(is_terminal && !no_color)
    }

    /// For stdout.
    pub fn stdout() -> Self {
        Self::detect(std::io::stdout().is_terminal())
    }

    /// For stderr.
    pub fn stderr() -> Self {
        Self::detect(std::io::stderr().is_terminal())
    }

    /// Whether colours and styles are on.
    pub fn is_colour(&self) -> bool {
        self.color
    }

    fn wrap(&self, codes: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{codes}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Dim and struck through: a reverted entry.
    pub fn reverted(&self, text: &str) -> String {
        self.wrap("2;9", text)
    }

    /// Dim: secondary information.
    pub fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }

    /// Bold.
    pub fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }

    /// A role label in its colour.
    pub fn role(&self, role: omni_proto::Role) -> String {
        let codes = match role {
            omni_proto::Role::User => "1;36",
            omni_proto::Role::Model => "1;32",
            omni_proto::Role::Tool => "1;33",
            omni_proto::Role::Summary => "1;35",
        };
        self.wrap(codes, role.as_str())
    }

    /// Red: errors.
    pub fn error(&self, text: &str) -> String {
        self.wrap("1;31", text)
    }
}
