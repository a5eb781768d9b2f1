//! Interrupts and the no-orphans guarantee.
//!
//! [`install`] (called by the `run`, `fuzz` and `mcp` subcommands, never by the library on its
//! own; `mcp` registers its proxies' process groups like adapters)
//! handles SIGINT, SIGTERM and SIGHUP on a signal-hook thread: the first one records the
//! signal and kills (SIGKILL) every adapter process group the harness started, so the runner
//! stops at once, marks the case in flight and the unsent ones `errored` ("interrupted"), and
//! the command writes its partial reports and exits with `ConformExitCode::INTERRUPTED`
//! (130). A second signal exits at once (after killing the groups again).
//!
//! [`become_subreaper`] makes the harness the child subreaper of everything it starts
//! (`PR_SET_CHILD_SUBREAPER`): a grandchild that leaves the adapter's process group (`setsid`,
//! `setpgid`) is re-parented to the harness rather than to PID 1 when its parent dies, and
//! [`sweep_orphans`] (run after every adapter is killed) kills and reaps every such child of
//! the harness that is not a live adapter. What this does not cover is documented in
//! `spec/adapter-protocol.md` §1.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};

/// The signal that interrupted the run, 0 if none.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Process groups of live adapters (their leaders' pids).
static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());
/// Whether [`become_subreaper`] succeeded.
static SUBREAPER: AtomicBool = AtomicBool::new(false);
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
/// Held while an adapter is spawned and registered, and while orphans are swept: with several
/// workers, a child another worker has just forked but not yet registered is not an orphan.
static SPAWNING: Mutex<()> = Mutex::new(());

/// Holds off [`sweep_orphans`] while the caller spawns and [`register`]s an adapter.
pub(crate) fn spawning() -> std::sync::MutexGuard<'static, ()> {
    SPAWNING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The exit code of an interrupted command.
pub const EXIT_INTERRUPTED: i32 = crate::exit::ConformExitCode::INTERRUPTED;

/// Handles SIGINT, SIGTERM and SIGHUP for the rest of the process (idempotent).
pub fn install() -> Result<(), String> {
    INSTALLED
        .get_or_init(|| {
            use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
            let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
                .map_err(|e| format!("cannot install signal handlers: {e}"))?;
            std::thread::Builder::new()
                .name("delegateos-signals".into())
                .spawn(move || {
                    for sig in signals.forever() {
                        let first = SIGNAL
                            .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
                            .is_ok();
                        kill_all_groups();
                        if !first {
                            std::process::exit(EXIT_INTERRUPTED);
                        }
                    }
                })
                .map(|_| ())
                .map_err(|e| format!("cannot start the signal thread: {e}"))
        })
        .clone()
}

/// The signal that interrupted this process's run, if one did.
pub fn interrupted() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Records `sig` as if it had been received (for tests and embedders).
pub fn simulate(sig: i32) {
    let _ = SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    kill_all_groups();
}

/// `SIGINT`, `SIGTERM`, `SIGHUP`, or `signal N`.
pub fn signal_name(sig: i32) -> String {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    match sig {
        SIGINT => "SIGINT".to_owned(),
        SIGTERM => "SIGTERM".to_owned(),
        SIGHUP => "SIGHUP".to_owned(),
        n => format!("signal {n}"),
    }
}

/// Makes this process the child subreaper of its descendants (Linux). Returns whether it is.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        let ok = rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok();
        SUBREAPER.store(ok, Ordering::SeqCst);
        ok
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

pub(crate) fn register(pgid: i32) {
    if let Ok(mut g) = GROUPS.lock() {
        g.insert(pgid);
    }
}

pub(crate) fn unregister(pgid: i32) {
    if let Ok(mut g) = GROUPS.lock() {
        g.remove(&pgid);
    }
}

fn kill_all_groups() {
    let groups: Vec<i32> = match GROUPS.lock() {
        Ok(g) => g.iter().copied().collect(),
        Err(_) => Vec::new(),
    };
    for pgid in groups {
        if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
    sweep_orphans();
}

/// When this process is a subreaper: kills (SIGKILL) and reaps every child of this process
/// that is not a live adapter's process-group leader, repeating while killing one re-parents
/// more (bounded). Only pids re-parented to us are waited for, by pid, so no `Child` handle
/// elsewhere loses its status.
pub fn sweep_orphans() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    let _spawning = spawning();
    for _ in 0..16 {
        let live: BTreeSet<i32> = match GROUPS.lock() {
            Ok(g) => g.clone(),
            Err(_) => return,
        };
        let orphans: Vec<i32> = children_of_self()
            .into_iter()
            .filter(|p| !live.contains(p))
            .collect();
        if orphans.is_empty() {
            return;
        }
        for pid in orphans {
            if let Some(p) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
                let _ = rustix::process::waitpid(Some(p), rustix::process::WaitOptions::empty());
            }
        }
    }
}

/// Pids whose parent is this process (from `/proc/*/stat`).
fn children_of_self() -> Vec<i32> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    super::procfs::processes()
        .into_iter()
        .filter(|(_, stat)| {
            super::procfs::field(stat, 1).and_then(|p| p.parse::<i32>().ok()) == Some(me)
        })
        .filter_map(|(pid, _)| i32::try_from(pid).ok())
        .collect()
}
