//! The glob of case ids, groups and operations (`--id 'dct-forged-*'`, expected-failures
//! entries): a leaf module both the filters and the baseline use, so neither imports the other
//! (and the baseline, which the runner imports, imports nothing of the runner).

/// Matches `text` against a glob where `*` is any run of characters (including `/`) and `?` is
/// exactly one character; everything else is literal. Runs in O(|pattern| × |text|) worst case
/// with no recursion, so a hostile pattern cannot hang the harness.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}
