//! Token verification against its Ed25519 floor, decoding, attenuation, revocation lookups.
//!
//! Run: `cargo bench -p delegateos-reference --bench verify` (see BENCHMARKS.md).
//!
//! * `verify/chain/N`: `verify::verify` of a valid token with N attenuations (N+1 signatures).
//! * `floor/chain/N`: only the N+1 `crypto::verify_strict` calls the verifier makes for that
//!   token, with the same keys, signatures and BLAKE2b-256 digests (precomputed), i.e. the cost
//!   no verifier following the strict profile (D10) can avoid.
//! * `decode/chain/N`: step 1 alone (base64url, strict JSON, structure, canonical-form check,
//!   per-block canonical texts, typed decode, formats).
//! * `attenuate/chain/N`: appending one block to a token that already has N.
//! * `revocation/lookup/N`: `entries_for` on a list of N verified entries (hit and miss).
//!
//! After criterion, a paired measurement alternates verify and floor rounds and prints the
//! median per-round ratio, which is robust to the load changes of a shared machine.

// A benchmark whose set-up fails should abort loudly; these are not library code paths.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, BenchmarkId, Criterion};

use delegateos_reference::attenuate::{attenuate, create, AttenuateParams, CreateParams};
use delegateos_reference::crypto::{blake2b256, verify_strict, Keypair};
use delegateos_reference::encoding::{decode_principal, decode_signature};
use delegateos_reference::faults::Faults;
use delegateos_reference::revocation::{create_entry, RevocationList, Scope};
use delegateos_reference::token::{
    attenuation_payload, authority_payload, canonical_of, decode_with_faults, encode,
    revocation_id_of_canonical, Capability, SerializedDct, SignedJsonToken,
};
use delegateos_reference::verify::{verify, VerificationContext};

const CHAINS: [usize; 5] = [0, 1, 2, 4, 8];
const NOW: &str = "2026-06-01T00:00:00Z";

fn key(i: u8) -> Keypair {
    Keypair::from_seed(&[i.wrapping_mul(17).wrapping_add(3); 32])
}

fn hex12(n: usize) -> String {
    format!("{n:012x}")
}

/// A valid token with `n` attenuations, each narrowing capability, budget and expiry.
fn token(n: usize) -> SignedJsonToken {
    let root = key(0);
    let mut t = create(
        &root,
        CreateParams {
            delegatee: key(1).principal_id(),
            capabilities: vec![
                Capability::new("docs", "read", "/project/**"),
                Capability::new("docs", "write", "/project/out/*"),
            ],
            contract_id: format!("ct_{}", hex12(1)),
            delegation_id: format!("del_{}", hex12(1)),
            parent_delegation_id: "del_000000000000".into(),
            chain_depth: 0,
            max_chain_depth: 16,
            max_budget_microcents: 1_000_000_000,
            expires_at: "2027-01-01T00:00:00Z".into(),
            issued_at: "2026-01-01T00:00:00Z".into(),
        },
    )
    .unwrap();
    for i in 0..n {
        let attenuator = key(u8::try_from(i + 1).unwrap());
        let depth = 16 - i;
        t = attenuate(
            &t,
            &attenuator,
            AttenuateParams {
                delegatee: key(u8::try_from(i + 2).unwrap()).principal_id(),
                delegation_id: format!("del_{}", hex12(i + 2)),
                contract_id: format!("ct_{}", hex12(i + 2)),
                allowed_capabilities: Some(vec![Capability::new(
                    "docs",
                    "read",
                    &format!("/project/{}**", "a/".repeat(i)),
                )]),
                max_budget_microcents: Some(1_000_000_000 - 1000 * (i as u64 + 1)),
                expires_at: Some(format!("2026-12-{:02}T00:00:00Z", 28 - i)),
                max_chain_depth: Some(depth as u64 - 2),
            },
        )
        .unwrap();
    }
    t
}

/// The (key, digest, signature) triples the verifier checks for `t`, computed as the spec says.
fn floor_inputs(t: &SignedJsonToken) -> Vec<([u8; 32], [u8; 32], [u8; 64])> {
    let auth = canonical_of(&t.authority);
    let atts: Vec<String> = t.attenuations.iter().map(canonical_of).collect();
    let mut out = vec![(
        decode_principal(&t.authority.issuer).unwrap(),
        blake2b256(authority_payload(&auth).as_bytes()),
        decode_signature(&t.signatures[0].signature).unwrap(),
    )];
    for (i, att) in t.attenuations.iter().enumerate() {
        let refs: Vec<&str> = atts[..=i].iter().map(String::as_str).collect();
        out.push((
            decode_principal(&att.attenuator).unwrap(),
            blake2b256(attenuation_payload(&auth, &refs).as_bytes()),
            decode_signature(&t.signatures[i + 1].signature).unwrap(),
        ));
    }
    out
}

fn floor(inputs: &[([u8; 32], [u8; 32], [u8; 64])]) {
    for (k, d, s) in inputs {
        black_box(verify_strict(black_box(k), black_box(d), black_box(s))).unwrap();
    }
}

fn ctx(revocations: &RevocationList) -> VerificationContext<'_> {
    VerificationContext {
        namespace: "docs".into(),
        operation: "read".into(),
        resource: "/project/a/a/a/a/a/a/a/a/readme.md".into(),
        now: NOW.into(),
        spent_microcents: 10,
        root_public_key: key(0).principal_id(),
        revocations,
    }
}

struct Fixture {
    n: usize,
    token: SignedJsonToken,
    dct: SerializedDct,
    floor: Vec<([u8; 32], [u8; 32], [u8; 64])>,
}

fn fixtures() -> Vec<Fixture> {
    CHAINS
        .iter()
        .map(|&n| {
            let token = token(n);
            let dct = encode(&token);
            let floor = floor_inputs(&token);
            assert_eq!(floor.len(), n + 1);
            Fixture {
                n,
                token,
                dct,
                floor,
            }
        })
        .collect()
}

fn bench_verify(c: &mut Criterion) {
    let empty = RevocationList::new();
    let ctx = ctx(&empty);
    let fx = fixtures();
    for f in &fx {
        verify(&f.dct, &ctx).unwrap();
        floor(&f.floor);
    }
    let mut g = c.benchmark_group("verify");
    for f in &fx {
        g.bench_with_input(BenchmarkId::new("chain", f.n), f, |b, f| {
            b.iter(|| verify(black_box(&f.dct), &ctx).unwrap());
        });
    }
    g.finish();
    let mut g = c.benchmark_group("floor");
    for f in &fx {
        g.bench_with_input(BenchmarkId::new("chain", f.n), f, |b, f| {
            b.iter(|| floor(&f.floor));
        });
    }
    g.finish();
    let mut g = c.benchmark_group("decode");
    for f in &fx {
        g.bench_with_input(BenchmarkId::new("chain", f.n), f, |b, f| {
            b.iter(|| decode_with_faults(black_box(&f.dct), &Faults::none()).unwrap());
        });
    }
    g.finish();
    let mut g = c.benchmark_group("attenuate");
    for f in fx.iter().filter(|f| f.n < 8) {
        let attenuator = key(u8::try_from(f.n + 1).unwrap());
        let params = AttenuateParams {
            delegatee: key(99).principal_id(),
            delegation_id: format!("del_{}", hex12(99)),
            contract_id: format!("ct_{}", hex12(99)),
            allowed_capabilities: Some(vec![Capability::new(
                "docs",
                "read",
                &format!("/project/{}x/*", "a/".repeat(f.n)),
            )]),
            max_budget_microcents: Some(1000),
            expires_at: Some("2026-07-01T00:00:00Z".into()),
            max_chain_depth: Some(0),
        };
        attenuate(&f.token, &attenuator, params.clone()).unwrap();
        g.bench_with_input(BenchmarkId::new("chain", f.n), f, |b, f| {
            b.iter(|| attenuate(black_box(&f.token), &attenuator, params.clone()).unwrap());
        });
    }
    g.finish();
}

/// A list of `n` verified entries for distinct synthetic revocation ids, one revoker.
fn revocation_list(n: usize) -> (RevocationList, String) {
    let revoker = key(50);
    let mut list = RevocationList::new();
    let mut some_id = String::new();
    for i in 0..n {
        let rid = revocation_id_of_canonical(&format!("{{\"synthetic\":{i}}}"));
        list.add(create_entry(&revoker, &rid, NOW, Scope::Block))
            .unwrap();
        if i == n / 2 {
            some_id = rid;
        }
    }
    (list, some_id)
}

/// True under `cargo bench` (criterion's `--bench` flag); `cargo test --benches` runs each
/// benchmark once and skips the slow set-up and the paired rounds.
fn bench_mode() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// List sizes: 1M verified entries would take ~2.5 min of signing and verifying to build, so
/// the largest list is 100k (see BENCHMARKS.md). `DOS_BENCH_REVOCATIONS` overrides the largest.
fn revocation_sizes() -> Vec<usize> {
    if !bench_mode() {
        return vec![10];
    }
    let big = std::env::var("DOS_BENCH_REVOCATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut sizes = vec![10, 10_000, big];
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

fn bench_revocation(c: &mut Criterion) {
    let missing = revocation_id_of_canonical("{\"not-revoked\":true}");
    let mut g = c.benchmark_group("revocation");
    for n in revocation_sizes() {
        let started = Instant::now();
        let (list, hit) = revocation_list(n);
        eprintln!(
            "revocation list of {n} verified entries built in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        assert_eq!(list.len(), n);
        g.bench_with_input(BenchmarkId::new("lookup_hit", n), &list, |b, list| {
            b.iter(|| black_box(list.entries_for(black_box(&hit))).len());
        });
        g.bench_with_input(BenchmarkId::new("lookup_miss", n), &list, |b, list| {
            b.iter(|| black_box(list.entries_for(black_box(&missing))).len());
        });
        // Whole verification of a 2-attenuation token against this list (3 lookups).
        let t = encode(&token(2));
        let ctx = ctx(&list);
        verify(&t, &ctx).unwrap();
        g.bench_with_input(BenchmarkId::new("verify_chain2", n), &t, |b, t| {
            b.iter(|| verify(black_box(t), &ctx).unwrap());
        });
    }
    g.finish();
}

/// Alternates rounds of verify and floor for each chain length and prints the median of the
/// per-round ratios (both halves of a round see nearly the same machine load).
fn paired_ratios() {
    let empty = RevocationList::new();
    let ctx = ctx(&empty);
    let fx = fixtures();
    println!("\npaired verify/floor ratio (median of 15 alternating rounds, 400 signature checks per side)");
    println!(
        "{:>6} {:>12} {:>12} {:>8}",
        "chain", "verify µs", "floor µs", "ratio"
    );
    for f in &fx {
        let reps = 400 / (f.n + 1);
        let mut rounds = Vec::new();
        for _ in 0..15 {
            let t0 = Instant::now();
            for _ in 0..reps {
                verify(black_box(&f.dct), &ctx).unwrap();
            }
            let v = t0.elapsed();
            let t1 = Instant::now();
            for _ in 0..reps {
                floor(&f.floor);
            }
            let fl = t1.elapsed();
            rounds.push((v, fl));
        }
        let per = |d: Duration| d.as_secs_f64() * 1e6 / reps as f64;
        let mut ratios: Vec<f64> = rounds
            .iter()
            .map(|(v, fl)| v.as_secs_f64() / fl.as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        let mut vs: Vec<f64> = rounds.iter().map(|r| per(r.0)).collect();
        let mut fs: Vec<f64> = rounds.iter().map(|r| per(r.1)).collect();
        vs.sort_by(f64::total_cmp);
        fs.sort_by(f64::total_cmp);
        println!(
            "{:>6} {:>12.1} {:>12.1} {:>8.3}",
            f.n, vs[7], fs[7], ratios[7]
        );
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench_verify, bench_revocation
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if bench_mode() && std::env::var_os("DOS_BENCH_NO_PAIRED").is_none() {
        paired_ratios();
    }
}
