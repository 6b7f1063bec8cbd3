//! Submission names are chosen by students: before one reaches a terminal its control
//! characters are shown as escapes, and before one reaches a spreadsheet a cell that would
//! run as a formula is quoted.

/// `name` with every control character (C0, DEL, C1: escape sequences, bells, carriage
/// returns that rewrite the line) shown as a `\u{..}` escape.
pub fn terminal(name: &str) -> String {
    if !name.chars().any(char::is_control) {
        return name.to_owned();
    }
    name.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A CSV cell that a spreadsheet shows as text: one starting with `=`, `+`, `-`, `@` (or a
/// tab or carriage return, which some strip before looking) gets a leading `'`, as OWASP
/// advises against CSV injection; control characters are escaped as for a terminal.
pub fn spreadsheet(cell: &str) -> String {
    let cell = terminal(cell);
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{cell}")
    } else {
        cell
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("alice", "alice")]
    #[case("\u{1b}[2Jbob", "\\u{1b}[2Jbob")]
    #[case("bell\u{7}", "bell\\u{7}")]
    #[case("csi\u{9b}", "csi\\u{9b}")]
    #[case("héloïse", "héloïse")]
    fn control_characters_never_reach_a_terminal(#[case] name: &str, #[case] shown: &str) {
        assert_eq!(terminal(name), shown);
    }

    #[rstest]
    #[case("=1+2", "'=1+2")]
    #[case("+cmd", "'+cmd")]
    #[case("-2", "'-2")]
    #[case("@SUM(A1)", "'@SUM(A1)")]
    #[case("alice", "alice")]
    #[case("a=b", "a=b")]
    fn formulas_never_run(#[case] cell: &str, #[case] shown: &str) {
        assert_eq!(spreadsheet(cell), shown);
    }
}
