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

/// True when the fault `id` is off: the guard `check && faults::off(id)` reads "the check, unless
/// this mistake is switched on" (written without `!`, so a mutant of the guard is a mutant of
/// the check, not of the switch).
pub fn off(id: &str) -> bool {
    !on(id)
}

/// One step of a segment-wise glob DP where `**` matches one or more segments (the spec: zero
/// or more): `next[j]` is true when `row[k]` is for some `k < j`.
pub fn double_star_one_or_more(row: &[bool], next: &mut [bool]) {
    let mut any = false;
    for (n, r) in next.iter_mut().zip(row) {
        *n = any;
        any |= *r;
    }
}

// The mistakes' own computations, called only where a switch is on. They live here, not in
// the algorithms, so that the algorithms hold no code that is dead in a user's build (and
// cargo-mutants, which skips this file, finds nothing in them that no input reaches).

/// Which blocks step 2 checks, as `(skip, take)` over the authority and `attenuations`
/// blocks: all of them, unless a mistake checks only the authority or only the last block.
pub fn revocation_blocks(attenuations: usize) -> (usize, usize) {
    if on("verify.2.authority-block-only") {
        (0, 1)
    } else if on("verify.2.last-block-only") {
        (attenuations, 1)
    } else {
        (0, usize::MAX)
    }
}

/// True when a signature is verified under its entry's `signer` member rather than the
/// block's signer: for every block, or (`root`) for the authority only.
pub fn signer_member_as_key(root: bool) -> bool {
    on("verify.3.signer-member-as-key") || (root && on("verify.3a.signer-member-as-key"))
}

/// The digest an attenuation signature is checked over when it is taken to cover its own
/// block only (BLAKE2b-256 of the block's canonical JSON), not the token prefix up to it.
pub fn block_only_digest(block_canonical: &str) -> [u8; 32] {
    crate::crypto::blake2b256(block_canonical.as_bytes())
}

/// `a >= b`, where the spec's comparison is `>` (an off-by-one mistake).
pub fn at_least<T: PartialOrd>(a: T, b: T) -> bool {
    a >= b
}

/// `a > b`, where the spec's comparison is `>=` (an off-by-one mistake).
pub fn greater<T: PartialOrd>(a: T, b: T) -> bool {
    a > b
}

/// A value a falsy test (`if (x)`) reads as "not set": 0, or an empty list.
pub trait Falsy {
    /// True for 0 and for an empty list.
    fn falsy(&self) -> bool;
}

impl Falsy for u64 {
    fn falsy(&self) -> bool {
        *self == 0
    }
}

impl<T> Falsy for &Vec<T> {
    fn falsy(&self) -> bool {
        self.is_empty()
    }
}

/// `value`, or `None` when fault `id` is on and the value is falsy.
pub fn falsy_as_unset<T: Falsy>(id: &str, value: Option<T>) -> Option<T> {
    match value {
        Some(v) if on(id) && v.falsy() => None,
        other => other,
    }
}

/// A pattern matched as a string prefix (the text before its first `*`, without a trailing
/// `/`): `/project/**` matches `/projectX/a`.
pub fn prefix_match(pattern: &str, resource: &str) -> bool {
    let literal = pattern.split('*').next().unwrap_or_default();
    resource.starts_with(literal.trim_end_matches('/'))
}

/// Capability subset with resources compared as string prefixes.
pub fn prefix_subset(child: &crate::token::Capability, parent: &crate::token::Capability) -> bool {
    child.namespace == parent.namespace
        && child.action == parent.action
        && child
            .resource
            .starts_with(parent.resource.split('*').next().unwrap_or_default())
}

/// True for the action `*` (read as a wildcard by the mistake).
pub fn is_star(action: &str) -> bool {
    action == "*"
}

/// One step of a segment-wise glob DP where `*` matches any run of segments: `next[j]` is
/// true when `row[k]` is for some `k < j`.
pub fn star_any_run(row: &[bool], next: &mut [bool]) {
    let mut any = false;
    for (n, r) in next.iter_mut().skip(1).zip(row) {
        any |= *r;
        *n = any;
    }
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
