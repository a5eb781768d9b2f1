//! Exploration on every core (`fuzz --jobs N`): workers build and run numbered batches of
//! candidates side by side, each through its own adapter process; this thread takes the
//! results in batch order.
//!
//! Batch `b` is a function of the seed and `b` alone (the caller's `make`), and results are
//! committed in batch order, so with a fixed budget of cases (`--max-cases`) and a fixed
//! `--seed` the same candidates reach the same triage in the same order for every number of
//! jobs: the same finding kinds (for an implementation that answers each input the same way
//! every time). With a `--duration` only, more jobs explore more batches in the same wall
//! time. Workers stay at most a few batches ahead of the commit, so memory is bounded.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::Instant;

use crate::runner::SetupError;

/// How many batches, of what size, until when, on how many workers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schedule {
    /// Workers (adapter processes) exploring at once.
    pub jobs: usize,
    /// Candidates per batch (one adapter session each).
    pub batch: usize,
    /// Stop after this many candidates in all (the last batch is cut to fit).
    pub max_cases: Option<usize>,
    /// No batch is started after this instant.
    pub deadline: Instant,
}

impl Schedule {
    /// The size of batch `b`, or `None` past the budget.
    fn size(&self, b: usize) -> Option<usize> {
        let batch = self.batch.max(1);
        match self.max_cases {
            None => Some(batch),
            Some(max) => {
                let start = b.checked_mul(batch)?;
                (start < max).then(|| batch.min(max - start))
            }
        }
    }
}

/// Runs one batch through the adapter: one result per candidate, or why the adapter could not
/// be started.
pub(crate) type RunBatch<'a, C, R> = &'a (dyn Fn(&[C]) -> Result<Vec<R>, SetupError> + Sync);

/// Runs batches on `schedule.jobs` workers until the budget, the deadline, or `commit`
/// returning false; `commit` sees every batch in order (`make(b, size)`'s candidates with
/// `run`'s results). The first setup error (the adapter cannot be started) ends the
/// exploration and is returned.
pub(crate) fn explore<C: Send, R: Send>(
    schedule: &Schedule,
    make: &(dyn Fn(usize, usize) -> Vec<C> + Sync),
    run: RunBatch<'_, C, R>,
    commit: &mut dyn FnMut(Vec<C>, Vec<R>) -> bool,
) -> Result<(), SetupError> {
    let jobs = schedule.jobs.max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // Batches committed so far; workers wait while they are this far ahead.
    let committed = (Mutex::new(0usize), Condvar::new());
    let ahead = 2 * jobs;
    let mut failure = None;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Vec<C>, Result<Vec<R>, SetupError>)>();
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stop, committed) = (&next, &stop, &committed);
            scope.spawn(move || loop {
                if stop.load(Ordering::SeqCst) || Instant::now() >= schedule.deadline {
                    break;
                }
                let b = next.fetch_add(1, Ordering::SeqCst);
                let Some(size) = schedule.size(b) else { break };
                {
                    let (lock, ready) = committed;
                    let mut done = lock
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    while b >= *done + ahead && !stop.load(Ordering::SeqCst) {
                        done = ready
                            .wait(done)
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                    }
                }
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let cands = make(b, size);
                let results = run(&cands);
                if tx.send((b, cands, results)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut want = 0;
        let mut halted = false;
        for (b, cands, results) in rx {
            pending.insert(b, (cands, results));
            while let Some((cands, results)) = pending.remove(&want) {
                want += 1;
                if !halted {
                    match results {
                        Ok(results) => halted = !commit(cands, results),
                        Err(e) => {
                            failure = Some(e);
                            halted = true;
                        }
                    }
                    if halted {
                        stop.store(true, Ordering::SeqCst);
                    }
                }
                let (lock, ready) = &committed;
                *lock
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = want;
                ready.notify_all();
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
