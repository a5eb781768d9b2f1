//! The fault catalogue's switches (`spec/data/faults.json`): one named implementation mistake
//! per switch, so that the corpus can be run against "the reference with exactly this bug" and
//! the fault's fingerprint computed (`delegateos_vectors::faults`).
//!
//! Without the feature `faults` — every build a user runs, and every build of the harness's
//! `run` — [`on`] is the constant `false` and the compiler removes every switch: the
//! algorithms behave, and read, as the spec. With the feature, at most one fault is on: the
//! one a thread chose with [`with`], else the one named by the environment variable
//! `DELEGATEOS_FAULT` (read once; how `reference-adapter` is made to play an implementation
//! with one bug, for the diagnosis tests).
//!
//! A switch is written where the mistake would be made, as `faults::on("id")`, guarding the
//! wrong behaviour; its id is the catalogue's. A switch the catalogue does not name is never
//! on; a catalogue fault whose switch is missing has an empty fingerprint, which the
//! fingerprint test refuses.

/// True when the fault `id` is on (always false without the feature `faults`).
#[cfg(not(feature = "faults"))]
#[inline(always)]
pub fn on(_id: &str) -> bool {
    false
}

#[cfg(feature = "faults")]
mod switch {
    use std::cell::RefCell;
    use std::sync::OnceLock;

    thread_local! {
        static ACTIVE: RefCell<Option<String>> = const { RefCell::new(None) };
    }

    fn from_env() -> Option<&'static str> {
        static ENV: OnceLock<Option<String>> = OnceLock::new();
        ENV.get_or_init(|| {
            std::env::var("DELEGATEOS_FAULT")
                .ok()
                .filter(|v| !v.is_empty())
        })
        .as_deref()
    }

    pub fn on(id: &str) -> bool {
        ACTIVE.with(|a| match a.borrow().as_deref() {
            Some(active) => active == id,
            None => from_env() == Some(id),
        })
    }

    pub fn with<R>(id: &str, f: impl FnOnce() -> R) -> R {
        struct Reset(Option<String>);
        impl Drop for Reset {
            fn drop(&mut self) {
                let previous = self.0.take();
                ACTIVE.with(|a| *a.borrow_mut() = previous);
            }
        }
        let previous = ACTIVE.with(|a| a.borrow_mut().replace(id.to_owned()));
        let _reset = Reset(previous);
        f()
    }
}

/// True when the fault `id` is on: the thread's fault (see [`with`]), else `DELEGATEOS_FAULT`.
#[cfg(feature = "faults")]
pub fn on(id: &str) -> bool {
    switch::on(id)
}

/// Runs `f` with the fault `id` on in this thread (and no other fault), restoring the previous
/// state afterwards, even if `f` panics.
#[cfg(feature = "faults")]
pub fn with<R>(id: &str, f: impl FnOnce() -> R) -> R {
    switch::with(id, f)
}

#[cfg(all(test, feature = "faults"))]
mod tests {
    #[test]
    fn one_fault_at_a_time_and_restored() {
        assert!(!super::on("a"));
        super::with("a", || {
            assert!(super::on("a"));
            assert!(!super::on("b"));
            super::with("b", || assert!(super::on("b") && !super::on("a")));
            assert!(super::on("a"));
        });
        assert!(!super::on("a"));
    }
}
