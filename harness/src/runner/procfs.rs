//! Reading Linux's `/proc`: every process's `stat` line, and its fields after the command name.
//! Elsewhere (no `/proc`) there are no processes to read, and callers fall back.

/// `(pid, stat line)` of every process whose `/proc/<pid>/stat` can be read now.
pub fn processes() -> Vec<(u32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            Some((pid, stat))
        })
        .collect()
}

/// Field `n` (0-based) after the command name of a stat line `pid (comm) state ppid pgrp …`:
/// 0 is the state, 1 the parent pid, 2 the process group. `comm` may contain spaces and
/// parentheses, so the fields start after the last `)`.
pub fn field(stat: &str, n: usize) -> Option<&str> {
    stat.rsplit_once(')')?.1.split_whitespace().nth(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_read_after_the_command_name() {
        assert_eq!(field("42 (sh) S 1 42 42 0 -1", 2), Some("42"));
        assert_eq!(field("43 (a b) c)) R 42 41 41 0", 1), Some("42"));
        assert_eq!(field("43 (a b) c)) R 42 41 41 0", 0), Some("R"));
        assert_eq!(field("44 (x) S", 2), None);
        assert_eq!(field("garbage", 0), None);
    }

    #[test]
    fn this_process_is_listed_where_there_is_a_proc() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            eprintln!("SKIPPED: no /proc on this system");
            return;
        }
        let me = std::process::id();
        assert!(processes().iter().any(|(pid, _)| *pid == me));
    }
}
