//! Text that came from an implementation (what it printed, its messages, its results, its
//! name) made harmless for a terminal: every control character is shown escaped, so an
//! escape sequence cannot retitle the terminal, clear the screen, move the cursor back over
//! a line, or reorder text (bidirectional overrides).

use std::borrow::Cow;
use std::fmt::Write;

/// Multi-line text: newlines and tabs stay, every other control character is escaped.
pub fn text(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\n' || c == '\t')
}

/// One-line text (names, ids, messages shown on a line of their own): newlines are escaped
/// too, so nothing can forge a line of the report.
pub fn line(text: &str) -> Cow<'_, str> {
    escape(text, |_| false)
}

/// A multi-line message as one line, for a summary row or a column: its first line, and
/// when that line only announces what follows (it ends with a colon, as "the
/// implementation cannot be loaded:" before a traceback), the last line too that is not a
/// stack frame (Node's "at ..."), which in a Python traceback or a Node error names the
/// exception. What the implementation printed, which start errors put last, is left out:
/// a module's `print` is not the cause. Not escaped: callers escape for where it goes.
pub fn headline(message: &str) -> String {
    let message = message
        .split_once(crate::runner::PRINTED)
        .map_or(message, |(before, _)| before);
    let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    match lines.rfind(|l| !l.starts_with("at ")) {
        Some(last) if first.ends_with(':') => format!("{first} {last}"),
        _ => first.to_owned(),
    }
}

/// Whether a character must not reach a terminal as itself: C0 and C1 controls, DEL, the
/// line and paragraph separators, and the bidirectional formatting characters.
fn is_dangerous(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{2028}' | '\u{2029}'
        )
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

fn escape(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_dangerous(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !is_dangerous(c) || keep(c) {
            escaped.push(c);
        } else {
            let code = c as u32;
            let _ = match c {
                '\n' => write!(escaped, "\\n"),
                '\r' => write!(escaped, "\\r"),
                '\t' => write!(escaped, "\\t"),
                _ if code < 0x80 => write!(escaped, "\\x{code:02x}"),
                _ => write!(escaped, "\\u{{{code:04x}}}"),
            };
        }
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_headline_keeps_what_a_colon_announces() {
        let load = "the implementation cannot be loaded:\n  File \"m.py\", line 1\n    def f()\n          ^\nSyntaxError: expected ':'\n";
        assert_eq!(
            headline(load),
            "the implementation cannot be loaded: SyntaxError: expected ':'"
        );
        let node = "cannot be loaded:\nTypeError: x is not a function\n    at f (m.mjs:1:1)\n";
        assert_eq!(
            headline(node),
            "cannot be loaded: TypeError: x is not a function"
        );
        assert_eq!(headline("no such file\nmore"), "no such file");
        let printed =
            "cannot be loaded:\nTraceback\nModuleNotFoundError: numpyy; it printed:\nloading";
        assert_eq!(
            headline(printed),
            "cannot be loaded: ModuleNotFoundError: numpyy"
        );
        let exited =
            "ended before the handshake: it exited with status 1; it printed:\nNode.js v20";
        assert_eq!(
            headline(exited),
            "ended before the handshake: it exited with status 1"
        );
        assert_eq!(headline("announces:"), "announces:");
        assert_eq!(headline(""), "");
    }

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(
            text("\x1b]0;pwned\x07\x1b[2J\r189 passed, 0 failed\n"),
            "\\x1b]0;pwned\\x07\\x1b[2J\\r189 passed, 0 failed\n"
        );
        assert_eq!(line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(
            text("\u{9b}31m \u{202e}abc \u{7f}"),
            "\\u{009b}31m \\u{202e}abc \\x7f"
        );
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(text("héllo\n\tworld ✓"), Cow::Borrowed(_)));
    }
}
