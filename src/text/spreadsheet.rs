//! Text made harmless for a spreadsheet cell: a cell that would run as a formula is quoted,
//! and what a terminal would obey is escaped, since a CSV file is also read with `cat`.

use std::borrow::Cow;

use super::terminal;

/// A CSV cell that a spreadsheet shows as text: one starting with `=`, `+`, `-`, `@` (or a
/// tab or carriage return, which some strip before looking) gets a leading `'`, as OWASP
/// advises against CSV injection; the rest is escaped as one-line terminal text.
pub fn cell(text: &str) -> Cow<'_, str> {
    // The test is on the raw text: escaping turns a leading tab or carriage return into a
    // backslash, but a spreadsheet that strips them would still have seen the formula after.
    let escaped = terminal::line(text);
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{escaped}"))
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("=1+2", "'=1+2")]
    #[case("+cmd", "'+cmd")]
    #[case("-2", "'-2")]
    #[case("@SUM(A1)", "'@SUM(A1)")]
    #[case("\t=1", "'\\t=1")]
    #[case("\r=1", "'\\r=1")]
    #[case("alice", "alice")]
    #[case("a=b", "a=b")]
    #[case("\u{202e}=1", "\\u{202e}=1")]
    fn formulas_never_run(#[case] raw: &str, #[case] shown: &str) {
        assert_eq!(cell(raw), shown);
    }

    #[test]
    fn a_clean_cell_is_borrowed() {
        assert!(matches!(cell("héloïse"), Cow::Borrowed(_)));
    }
}
