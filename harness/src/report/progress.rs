//! The live progress bar: drawn on stderr only when stderr is a terminal, so logs and CI output
//! stay clean. Redraws at most every 50 ms.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use crate::runner::case::Case;
use crate::runner::{CaseResult, Observer, Status};

/// A one-line progress bar on stderr.
#[derive(Debug)]
pub struct ProgressBar {
    enabled: bool,
    total: usize,
    done: usize,
    bad: usize,
    last: Option<Instant>,
}

impl ProgressBar {
    /// A bar that draws only if stderr is a terminal.
    pub fn stderr() -> Self {
        Self {
            enabled: std::io::stderr().is_terminal(),
            total: 0,
            done: 0,
            bad: 0,
            last: None,
        }
    }

    fn draw(&mut self, id: &str, force: bool) {
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        if !force
            && self
                .last
                .is_some_and(|l| now - l < Duration::from_millis(50))
        {
            return;
        }
        self.last = Some(now);
        let width = 30usize;
        let filled = (self.done * width).checked_div(self.total).unwrap_or(width);
        let id: String = id.chars().take(40).collect();
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[2K[{}{}] {}/{} {} not passing  {}",
            "#".repeat(filled),
            "-".repeat(width - filled),
            self.done,
            self.total,
            self.bad,
            id
        );
        let _ = err.flush();
    }
}

impl Observer for ProgressBar {
    fn start(&mut self, total: usize) {
        self.total = total;
        self.draw("", true);
    }

    fn case_done(&mut self, case: &Case, result: &CaseResult) {
        self.done += 1;
        if matches!(
            result.status,
            Status::Failed | Status::Errored | Status::Stale
        ) {
            self.bad += 1;
        }
        self.draw(&case.id, self.done == self.total);
    }

    fn finish(&mut self) {
        if self.enabled {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}
