//! Messages shortened for a line of their own: the headline of a multi-line error.

/// A multi-line message as one line, for a summary row or a column: its first line, and
/// when that line only announces what follows (it ends with a colon, as "the
/// implementation cannot be loaded:" before a traceback), the last line too that is not a
/// stack frame (Node's "at ..."), which in a Python traceback or a Node error names the
/// exception. Not escaped: callers escape for where it goes. A start error's headline,
/// which leaves out what the implementation printed, is `StartError::headline`.
pub fn headline(message: &str) -> String {
    let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    match lines.rfind(|l| !l.starts_with("at ")) {
        Some(last) if first.ends_with(':') => format!("{first} {last}"),
        _ => first.to_owned(),
    }
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
        assert_eq!(headline("announces:"), "announces:");
        assert_eq!(headline(""), "");
    }
}
