//! Deadlines that do not depend on machine load: the time an adapter spent waiting for a CPU
//! is not counted against it.
//!
//! A per-case deadline is wall time, and wall time on a loaded machine is not the adapter's
//! time: beside a build and two fuzzers on two cores, a correct node adapter once needed more
//! than 5 s of wall time for a 1 MiB token it verifies in 0.3 s, and the run reported a hang.
//! Linux counts, per thread, the time it was runnable but waiting on a run queue
//! (`/proc/<pid>/schedstat`, second field, summed over threads in the process's file). When the
//! wall deadline passes, the larger of two waits since the start is added to the deadline, up
//! to [`MAX_STRETCH`] times the timeout: the wait of the adapter's process group (the most any
//! member waited), and the harness's own (a reply sitting in the pipe while the harness's
//! reader thread waits for a CPU is not late either). A busy-looping adapter
//! still times out after the timeout of time it could run; one blocked on nothing (sleeping)
//! accumulates no run-queue wait and times out at the wall deadline, as before.
//!
//! Where `/proc/<pid>/schedstat` does not exist (not Linux, or a kernel without scheduler
//! statistics), nothing is added: the deadline is wall time.

use std::time::{Duration, Instant};

use super::procfs;

/// A deadline is stretched to at most this many times the timeout, so a run always finishes.
pub const MAX_STRETCH: u32 = 10;

/// The run-queue wait of an adapter's process group since [`Self::start`].
#[derive(Debug, Clone, Copy)]
pub struct RunQueueWait {
    pgid: u32,
    /// The group leader's run-queue wait at the start, in ns (`None` if unreadable).
    leader_at_start: Option<u64>,
    /// The harness's own run-queue wait at the start, in ns (`None` if unreadable).
    own_at_start: Option<u64>,
}

impl RunQueueWait {
    /// Notes the group leader's wait now (one small file read; the group is scanned only when
    /// a deadline passes).
    pub fn start(pgid: u32) -> Self {
        Self {
            pgid,
            leader_at_start: run_queue_ns(pgid),
            own_at_start: run_queue_ns(std::process::id()),
        }
    }

    /// The wait since [`Self::start`]: the largest of the harness's own growth and the
    /// members' waits — the leader's growth since the start, and for every other member of the
    /// group its whole wait (a member started earlier may so be credited wait from before the
    /// start; the stretch cap bounds that).
    pub fn waited(&self) -> Duration {
        let own = run_queue_ns(std::process::id());
        let mut max_ns = match (own, self.own_at_start) {
            (Some(now), Some(then)) => now.saturating_sub(then),
            _ => 0,
        };
        for (pid, ns) in group_members(self.pgid) {
            let grown = if pid == self.pgid {
                ns.saturating_sub(self.leader_at_start.unwrap_or(ns))
            } else {
                ns
            };
            max_ns = max_ns.max(grown);
        }
        Duration::from_nanos(max_ns)
    }
}

impl RunQueueWait {
    /// Called when a wall deadline for a wait that began at `started` has passed: the later
    /// deadline that not counting the wait allows, while it still lies ahead (`Ok`), or how
    /// much wait was not counted when it does not (`Err`, zero if none).
    pub fn extended(&self, started: Instant, timeout: Duration) -> Result<Instant, Duration> {
        let allowed = stretched(timeout, self.waited());
        let later = started + allowed;
        if later > Instant::now() {
            Ok(later)
        } else {
            Err(allowed - timeout)
        }
    }
}

/// The deadline after `timeout` once `waited` is not counted: `timeout + waited`, at most
/// [`MAX_STRETCH`] × `timeout`.
pub fn stretched(timeout: Duration, waited: Duration) -> Duration {
    (timeout + waited).min(timeout * MAX_STRETCH)
}

/// Run-queue wait of one process in ns, summed over its threads by the kernel.
fn run_queue_ns(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// `(pid, run-queue wait in ns)` of every process whose process group is `pgid`.
fn group_members(pgid: u32) -> Vec<(u32, u64)> {
    procfs::processes()
        .into_iter()
        .filter(|(_, stat)| process_group(stat) == Some(pgid))
        .filter_map(|(pid, _)| Some((pid, run_queue_ns(pid)?)))
        .collect()
}

/// The process group of a `/proc/<pid>/stat` line.
fn process_group(stat: &str) -> Option<u32> {
    procfs::field(stat, 2)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_group_is_read_after_the_command_name() {
        assert_eq!(process_group("42 (sh) S 1 42 42 0 -1"), Some(42));
        assert_eq!(process_group("43 (a b) c)) R 42 41 41 0"), Some(41));
        assert_eq!(process_group("44 (x) S"), None);
        assert_eq!(process_group("garbage"), None);
    }

    #[test]
    fn a_deadline_stretches_by_the_wait_up_to_the_cap() {
        let t = Duration::from_secs(5);
        assert_eq!(stretched(t, Duration::ZERO), t);
        assert_eq!(stretched(t, Duration::from_secs(3)), Duration::from_secs(8));
        assert_eq!(stretched(t, Duration::from_secs(3600)), t * MAX_STRETCH);
    }

    #[test]
    fn this_process_group_is_found_when_the_kernel_keeps_scheduler_statistics() {
        let me = std::process::id();
        if run_queue_ns(me).is_none() {
            eprintln!("SKIPPED: no /proc/<pid>/schedstat on this system");
            return;
        }
        let pgid = rustix::process::getpgrp()
            .as_raw_nonzero()
            .get()
            .unsigned_abs();
        let members = group_members(pgid);
        assert!(
            members.iter().any(|(pid, _)| *pid == me),
            "{me} not in group {pgid}: {members:?}"
        );
        // A group nobody is in has waited for nothing.
        let nobody = RunQueueWait {
            pgid: u32::MAX,
            leader_at_start: None,
            own_at_start: None,
        };
        assert_eq!(nobody.waited(), Duration::ZERO);
    }
}
