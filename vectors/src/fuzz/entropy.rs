//! Where a fuzzer's choices come from: [`Entropy`], implemented by the harness's seeded
//! generator ([`Rng`], SplitMix64: the same `--seed` gives the same run) and by libFuzzer's
//! bytes ([`Bytes`]: one byte per choice, so byte-level mutations stay meaningful). Every
//! mutator of the core is generic over it.

/// A source of choices.
pub trait Entropy {
    /// A number in `0..n` (0 when `n` is 0 or 1).
    fn below(&mut self, n: usize) -> usize;

    /// One element of a slice (`None` when it is empty).
    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T>
    where
        Self: Sized,
    {
        items.get(self.below(items.len()))
    }
}

/// A registered operation's mutator gets its choices as a trait object
/// ([`crate::fuzz::ops::Fuzzable`]); the generic mutators take it through this.
impl Entropy for &mut dyn Entropy {
    fn below(&mut self, n: usize) -> usize {
        (**self).below(n)
    }
}

/// A small deterministic PRNG (SplitMix64): the same `--seed` gives the same run.
#[derive(Debug, Clone)]
pub struct Rng(u64);

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        splitmix(&mut self.0)
    }
}

impl Entropy for Rng {
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        usize::try_from(self.next_u64() % u64::try_from(n).unwrap_or(u64::MAX)).unwrap_or(0)
    }
}

/// FNV-1a over `bytes` (the state [`Bytes`] continues from, and the in-process finding files'
/// names).
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A fuzzer's bytes read as a sequence of decisions: one byte per choice among at most 256
/// (two bytes up to 65,536), then, when the bytes run out, a SplitMix64 stream seeded by their
/// hash. Same bytes, same decisions; a prefix of the bytes fixes the first decisions.
#[derive(Debug, Clone)]
pub struct Bytes<'a> {
    bytes: &'a [u8],
    pos: usize,
    state: u64,
}

impl<'a> Bytes<'a> {
    /// The decisions `bytes` make.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            state: fnv(bytes),
        }
    }

    fn byte(&mut self) -> u8 {
        if let Some(b) = self.bytes.get(self.pos) {
            self.pos += 1;
            return *b;
        }
        splitmix(&mut self.state).to_le_bytes()[0]
    }
}

impl Entropy for Bytes<'_> {
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let width = if n <= 1 << 8 {
            1
        } else if n <= 1 << 16 {
            2
        } else {
            4
        };
        let v = (0..width).fold(0usize, |v, _| (v << 8) | usize::from(self.byte()));
        v % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_deterministic_and_continue_past_the_input() {
        let mut a = Bytes::new(&[1, 2, 3]);
        let mut b = Bytes::new(&[1, 2, 3]);
        let xs: Vec<usize> = (0..50).map(|_| a.below(1000)).collect();
        let ys: Vec<usize> = (0..50).map(|_| b.below(1000)).collect();
        assert_eq!(xs, ys);
        assert_eq!(Bytes::new(&[7]).below(10), 7);
        assert_eq!(Bytes::new(&[1, 44]).below(1000), 256 + 44);
    }
}
