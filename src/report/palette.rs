//! Colour, chosen once at the edge (`--color`, `NO_COLOR`, whether the stream is a
//! terminal) and handed to renderers as a value.

use std::fmt;

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    Always,
    Never,
}

/// The styles a renderer may use. `Palette::plain()` makes every style a no-op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    enabled: bool,
}

impl Palette {
    pub fn plain() -> Palette {
        Palette { enabled: false }
    }

    pub fn colored() -> Palette {
        Palette { enabled: true }
    }

    /// Resolves `--color` for a stream.
    pub fn for_stream(choice: ColorChoice, is_terminal: bool) -> Palette {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let enabled = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_terminal && !no_color,
        };
        Palette { enabled }
    }

    pub fn pass<D: fmt::Display>(&self, text: D) -> Styled<D> {
        self.style("32", text)
    }
    pub fn fail<D: fmt::Display>(&self, text: D) -> Styled<D> {
        self.style("31;1", text)
    }
    pub fn warn<D: fmt::Display>(&self, text: D) -> Styled<D> {
        self.style("33", text)
    }
    pub fn bold<D: fmt::Display>(&self, text: D) -> Styled<D> {
        self.style("1", text)
    }
    pub fn dim<D: fmt::Display>(&self, text: D) -> Styled<D> {
        self.style("2", text)
    }
    pub fn removed<D: fmt::Display>(&self, text: D) -> Styled<D> {
        self.style("31", text)
    }
    pub fn added<D: fmt::Display>(&self, text: D) -> Styled<D> {
        self.style("32", text)
    }

    fn style<D: fmt::Display>(&self, code: &'static str, text: D) -> Styled<D> {
        Styled {
            code: self.enabled.then_some(code),
            text,
        }
    }
}

/// Text with an optional ANSI style.
pub struct Styled<D> {
    code: Option<&'static str>,
    text: D,
}

impl<D: fmt::Display> fmt::Display for Styled<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            Some(code) => write!(f, "\x1b[{code}m{}\x1b[0m", self.text),
            None => self.text.fmt(f),
        }
    }
}
