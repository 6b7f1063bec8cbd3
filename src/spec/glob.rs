//! Case-id globs, for `--case` and expectations files.

/// `*` matches any run of characters, `?` any one character.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("exec-*", "exec-seed-001"));
        assert!(glob_match("*-00?", "dedup-seed-001"));
        assert!(glob_match("exec-seed-001", "exec-seed-001"));
        assert!(!glob_match("exec-*", "dedup-seed-001"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("a*b", "acbd"));
    }
}
