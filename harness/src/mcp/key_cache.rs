//! The reference proxy's bounded store of validated signer keys.
//!
//! A performance cache, not a spec algorithm: D10's key checks depend only on the key, so a
//! long-lived proxy validates each signer's key once ([`KeyStore`]) and keeps at most a fixed
//! number of them, however many distinct keys clients send. Which keys it holds changes how
//! often a key is validated, never a decision.

use std::collections::HashMap;

use delegateos_reference::crypto::{KeyStore, SignatureError, ValidatedKey};

/// A bounded cache of [`ValidatedKey`]s for a long-lived verifier (one per proxy session).
///
/// A plain data structure: no clock, no I/O, no interior mutability. Only keys that pass
/// validation are stored; an invalid key is re-checked each time it is presented (storing
/// failures would let junk keys evict good ones for free). When full, the least recently used
/// half is evicted (amortized O(log n) per insertion).
#[derive(Debug, Clone)]
pub struct KeyCache {
    entries: HashMap<[u8; 32], (ValidatedKey, u64)>,
    capacity: usize,
    tick: u64,
}

impl Default for KeyCache {
    fn default() -> Self {
        Self::new(Self::DEFAULT_CAPACITY)
    }
}

impl KeyCache {
    /// Default capacity: 4096 keys (each entry is about 200 bytes).
    pub const DEFAULT_CAPACITY: usize = 4096;

    /// An empty cache holding at most `capacity` keys (at least 1).
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: HashMap::new(),
            capacity: capacity.max(1),
            tick: 0,
        }
    }

    /// Number of keys held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if no key is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The largest number of keys held.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    fn evict_older_half(&mut self) {
        let mut ticks: Vec<u64> = self.entries.values().map(|e| e.1).collect();
        ticks.sort_unstable();
        let keep = self.capacity / 2;
        let cutoff = ticks.get(ticks.len().saturating_sub(keep)).copied();
        match cutoff {
            Some(c) if keep > 0 => self.entries.retain(|_, e| e.1 >= c),
            _ => self.entries.clear(),
        }
    }
}

impl KeyStore for KeyCache {
    /// The validated key for `public_key`, validating and remembering it on a miss.
    fn validated(&mut self, public_key: &[u8; 32]) -> Result<&ValidatedKey, SignatureError> {
        self.tick = self.tick.wrapping_add(1);
        let tick = self.tick;
        if !self.entries.contains_key(public_key) {
            let key = ValidatedKey::from_bytes(public_key)?;
            if self.entries.len() >= self.capacity {
                self.evict_older_half();
            }
            self.entries.insert(*public_key, (key, tick));
        }
        match self.entries.get_mut(public_key) {
            Some(entry) => {
                entry.1 = tick;
                Ok(&entry.0)
            }
            // Unreachable: the key was present or has just been inserted (capacity ≥ 1).
            None => Err(SignatureError::NonCanonicalA),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use delegateos_reference::crypto::{verify_strict, verify_strict_with, Keypair};

    #[test]
    fn stays_bounded_and_keeps_recent_keys() {
        let mut cache = KeyCache::new(8);
        assert_eq!(cache.capacity(), 8);
        let keys: Vec<Keypair> = (0..40u8).map(|i| Keypair::from_seed(&[i; 32])).collect();
        for (i, kp) in keys.iter().enumerate() {
            let msg = [u8::try_from(i).unwrap(); 3];
            let sig = kp.sign_message(&msg);
            assert_eq!(
                verify_strict_with(&mut cache, &kp.public_key(), &msg, &sig),
                Ok(())
            );
            // A hot key stays: touch key 0 every time.
            assert_eq!(
                verify_strict_with(
                    &mut cache,
                    &keys[0].public_key(),
                    b"x",
                    &keys[0].sign_message(b"x")
                ),
                Ok(())
            );
            assert!(cache.len() <= 8);
        }
        assert!(cache.validated(&keys[39].public_key()).is_ok());
        // Invalid keys are not stored.
        let before = cache.len();
        assert_eq!(
            cache.validated(&[0u8; 32]).map(|_| ()),
            Err(SignatureError::SmallOrderA)
        );
        assert_eq!(cache.len(), before);
        let mut tiny = KeyCache::new(0);
        assert_eq!(tiny.capacity(), 1);
        let sig = keys[1].sign_message(b"m");
        assert_eq!(
            verify_strict_with(&mut tiny, &keys[1].public_key(), b"m", &sig),
            Ok(())
        );
        assert_eq!(
            verify_strict_with(&mut tiny, &keys[2].public_key(), b"m", &sig),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(tiny.len(), 1);
        tiny.clear();
        assert!(tiny.is_empty());
    }

    /// Through a small cache that evicts all the time, every verdict (and every error kind) is
    /// `verify_strict`'s: a bad S, a bad key, a wrong message, a good signature, keys that come
    /// back after their eviction.
    #[test]
    fn agrees_with_verify_strict_while_evicting() {
        for capacity in [1, 2, 3, 4] {
            let mut cache = KeyCache::new(capacity);
            for round in 0..3u8 {
                for i in 0..10u8 {
                    let kp = Keypair::from_seed(&[i; 32]);
                    let pk = kp.public_key();
                    let msg = [i, round];
                    let good = kp.sign_message(&msg);
                    let mut big_s = good;
                    big_s[63] = 0xff;
                    let mut small_a = [0u8; 32];
                    small_a[0] = 1; // the identity: small order
                    for (key, message, sig) in [
                        (pk, &msg[..], good),
                        (pk, &b"other"[..], good),
                        (pk, &msg[..], big_s),
                        (small_a, &msg[..], good),
                        (small_a, &msg[..], big_s),
                    ] {
                        assert_eq!(
                            verify_strict_with(&mut cache, &key, message, &sig),
                            verify_strict(&key, message, &sig),
                            "capacity {capacity}, key {i}, round {round}"
                        );
                    }
                    assert!(cache.len() <= capacity);
                }
            }
        }
    }
}
