//! Text made harmless for a terminal: every character that could act rather than show
//! (escape sequences that retitle the terminal, clear the screen or move the cursor, carriage
//! returns that rewrite a line, bidirectional overrides that reorder it) is shown escaped.

use std::borrow::Cow;
use std::fmt::Write;

/// Multi-line text: newlines and tabs stay, every other dangerous character is escaped.
pub fn multiline(text: &str) -> Cow<'_, str> {
    escape(text, |c| c == '\n' || c == '\t')
}

/// One-line text (names, ids, messages shown on a line of their own): newlines and tabs are
/// escaped too, so nothing can forge a line of a report or a column of a table.
pub fn line(text: &str) -> Cow<'_, str> {
    escape(text, |_| false)
}

/// Whether a character must not reach a terminal as itself: C0 and C1 controls, DEL, the
/// line and paragraph separators (some terminals and editors break lines there), and every
/// bidirectional formatting character (marks, embeddings, overrides, isolates), which can
/// make a name read as another.
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
    let shown = |c: char| !is_dangerous(c) || keep(c);
    // Most text is clean: scanning first lets it through without a copy.
    if text.chars().all(shown) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if shown(c) {
            escaped.push(c);
            continue;
        }
        let code = u32::from(c);
        // Writing to a String cannot fail.
        let _ = match c {
            '\n' => write!(escaped, "\\n"),
            '\r' => write!(escaped, "\\r"),
            '\t' => write!(escaped, "\\t"),
            _ if code < 0x80 => write!(escaped, "\\x{code:02x}"),
            _ => write!(escaped, "\\u{{{code:04x}}}"),
        };
    }
    Cow::Owned(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case::nul("\u{0}", "\\x00")]
    #[case::bell("\u{7}", "\\x07")]
    #[case::escape("\u{1b}[2J", "\\x1b[2J")]
    #[case::carriage_return("\r", "\\r")]
    #[case::unit_separator("\u{1f}", "\\x1f")]
    #[case::del("\u{7f}", "\\x7f")]
    #[case::c1_first("\u{80}", "\\u{0080}")]
    #[case::csi("\u{9b}31m", "\\u{009b}31m")]
    #[case::c1_last("\u{9f}", "\\u{009f}")]
    #[case::line_separator("\u{2028}", "\\u{2028}")]
    #[case::paragraph_separator("\u{2029}", "\\u{2029}")]
    #[case::arabic_letter_mark("\u{61c}", "\\u{061c}")]
    #[case::lrm("\u{200e}", "\\u{200e}")]
    #[case::rlm("\u{200f}", "\\u{200f}")]
    #[case::lre("\u{202a}", "\\u{202a}")]
    #[case::rle("\u{202b}", "\\u{202b}")]
    #[case::pdf("\u{202c}", "\\u{202c}")]
    #[case::lro("\u{202d}", "\\u{202d}")]
    #[case::rlo("\u{202e}", "\\u{202e}")]
    #[case::lri("\u{2066}", "\\u{2066}")]
    #[case::rli("\u{2067}", "\\u{2067}")]
    #[case::fsi("\u{2068}", "\\u{2068}")]
    #[case::pdi("\u{2069}", "\\u{2069}")]
    fn every_dangerous_class_is_escaped_in_both_variants(#[case] raw: &str, #[case] shown: &str) {
        assert_eq!(multiline(&format!("a{raw}b")), format!("a{shown}b"));
        assert_eq!(line(&format!("a{raw}b")), format!("a{shown}b"));
    }

    #[test]
    fn only_one_line_text_escapes_newlines_and_tabs() {
        assert_eq!(multiline("a\nb\tc"), "a\nb\tc");
        assert_eq!(line("a\nb\tc"), "a\\nb\\tc");
    }

    #[test]
    fn escape_sequences_are_shown_not_obeyed() {
        assert_eq!(
            multiline("\x1b]0;pwned\x07\x1b[2J\r189 passed, 0 failed\n"),
            "\\x1b]0;pwned\\x07\\x1b[2J\\r189 passed, 0 failed\n"
        );
    }

    #[rstest]
    #[case("")]
    #[case("héloïse")]
    #[case("✓ 名前 \u{200b} \u{a0}")]
    fn clean_text_is_borrowed(#[case] clean: &str) {
        assert!(matches!(multiline(clean), Cow::Borrowed(_)));
        assert!(matches!(line(clean), Cow::Borrowed(_)));
        assert!(matches!(multiline("héllo\n\tworld ✓"), Cow::Borrowed(_)));
    }
}
