//! Token verification against its Ed25519 floor, decoding, attenuation, revocation lookups.
//!
//! Run: `cargo bench -p delegateos-reference --bench verify` (see BENCHMARKS.md).
//!
//! * `verify/chain/N`: `verify::verify_with_keys` of a valid token with N attenuations (N+1
//!   signatures) with the signers' keys already validated (a warm `HashMap` of `ValidatedKey`s,
//!   the `KeyStore` a long-lived verifier such as the adapter or the proxy passes).
//! * `verify_cold/chain/N`: `verify::verify`, which validates every signer's key per call.
//! * `floor/chain/N`: N+1 calls of ed25519-dalek's own `VerifyingKey::verify_strict` (keys
//!   decompressed outside the loop) over the same digests and signatures the verifier checks:
//!   the Ed25519 floor.
//! * `old_strict/chain/N`: the N+1 calls of the previous `crypto::verify_strict` (copied below
//!   as `old_verify_strict`, for the comparison only).
//! * `decode/chain/N`: step 1 alone (base64url, strict JSON, structure, canonical-form check,
//!   per-block canonical texts, typed decode, formats).
//! * `attenuate/chain/N`: appending one block to a token that already has N.
//! * `revocation/lookup/N`: `entries_for` on a list of N verified entries (hit and miss).
//!
//! After criterion, a paired measurement interleaves verify (warm and cold), floor, old-strict,
//! decode and validated-key calls and prints the median per-round ratios, which are robust to the load changes of a
//! shared machine. Then, when `node` is on the PATH, the same tokens are verified by the Node
//! verifier in `benches/node/` (on @noble/ed25519) in alternating rounds with the reference.

// A benchmark whose set-up fails should abort loudly; these are not library code paths.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, BenchmarkId, Criterion};

use curve25519_dalek::edwards::CompressedEdwardsY;
use curve25519_dalek::scalar::Scalar;
use delegateos_reference::attenuate::{attenuate, create, AttenuateParams, CreateParams};
use delegateos_reference::crypto::{blake2b256, Keypair, ValidatedKey};
use delegateos_reference::encoding::{decode_principal, decode_signature};
use delegateos_reference::revocation::{create_entry, RevocationList, Scope};
use delegateos_reference::token::{
    attenuation_payload, authority_payload, canonical_of, decode_blocks, encode,
    revocation_id_of_canonical, Capability, SerializedDct, SignedJsonToken,
};
use delegateos_reference::verify::{verify, verify_with_keys, VerificationContext};
use ed25519_dalek::{Signature, VerifyingKey};

const CHAINS: [usize; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
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

/// The floor: dalek's `verify_strict` with keys decoded ahead of time.
fn floor(inputs: &[(VerifyingKey, [u8; 32], Signature)]) {
    for (k, d, s) in inputs {
        black_box(k.verify_strict(black_box(d), black_box(s))).unwrap();
    }
}

/// The previous `crypto::verify_strict` (before the validated-key fast path), for comparison.
fn old_verify_strict(public_key: &[u8; 32], message: &[u8], sig: &[u8; 64]) -> Result<(), ()> {
    fn check_point(bytes: &[u8; 32]) -> Result<(), ()> {
        let point = CompressedEdwardsY(*bytes).decompress().ok_or(())?;
        if point.compress().to_bytes() != *bytes || point.is_small_order() {
            return Err(());
        }
        if !point.is_torsion_free() {
            return Err(());
        }
        Ok(())
    }
    let mut r = [0u8; 32];
    let mut s = [0u8; 32];
    r.copy_from_slice(&sig[..32]);
    s.copy_from_slice(&sig[32..]);
    if Option::<Scalar>::from(Scalar::from_canonical_bytes(s)).is_none() {
        return Err(());
    }
    check_point(public_key)?;
    check_point(&r)?;
    let vk = VerifyingKey::from_bytes(public_key).map_err(|_| ())?;
    vk.verify_strict(message, &Signature::from_bytes(sig))
        .map_err(|_| ())
}

fn old_strict(inputs: &[([u8; 32], [u8; 32], [u8; 64])]) {
    for (k, d, s) in inputs {
        black_box(old_verify_strict(black_box(k), black_box(d), black_box(s))).unwrap();
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
    raw: Vec<([u8; 32], [u8; 32], [u8; 64])>,
    floor: Vec<(VerifyingKey, [u8; 32], Signature)>,
}

fn fixtures() -> Vec<Fixture> {
    CHAINS
        .iter()
        .map(|&n| {
            let token = token(n);
            let dct = encode(&token);
            let raw = floor_inputs(&token);
            assert_eq!(raw.len(), n + 1);
            let floor = raw
                .iter()
                .map(|(k, d, s)| {
                    (
                        VerifyingKey::from_bytes(k).unwrap(),
                        *d,
                        Signature::from_bytes(s),
                    )
                })
                .collect();
            Fixture {
                n,
                token,
                dct,
                raw,
                floor,
            }
        })
        .collect()
}

fn bench_verify(c: &mut Criterion) {
    let empty = RevocationList::new();
    let ctx = ctx(&empty);
    let fx = fixtures();
    let mut keys: HashMap<[u8; 32], ValidatedKey> = HashMap::new();
    for f in &fx {
        verify(&f.dct, &ctx).unwrap();
        verify_with_keys(&f.dct, &ctx, &mut keys).unwrap();
        floor(&f.floor);
        old_strict(&f.raw);
    }
    let mut g = c.benchmark_group("verify");
    for f in &fx {
        g.bench_with_input(BenchmarkId::new("chain", f.n), f, |b, f| {
            b.iter(|| verify_with_keys(black_box(&f.dct), &ctx, &mut keys).unwrap());
        });
    }
    g.finish();
    let mut g = c.benchmark_group("verify_cold");
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
    let mut g = c.benchmark_group("old_strict");
    for f in &fx {
        g.bench_with_input(BenchmarkId::new("chain", f.n), f, |b, f| {
            b.iter(|| old_strict(&f.raw));
        });
    }
    g.finish();
    let mut g = c.benchmark_group("decode");
    for f in &fx {
        g.bench_with_input(BenchmarkId::new("chain", f.n), f, |b, f| {
            b.iter(|| decode_blocks(black_box(&f.dct)).unwrap());
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
        assert_eq!(list.list().len(), n);
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The fast strict path alone: `ValidatedKey::verify` with keys validated ahead of time.
fn validated(inputs: &[(ValidatedKey, [u8; 32], [u8; 64])]) {
    for (k, d, s) in inputs {
        black_box(k.verify(black_box(d), black_box(s))).unwrap();
    }
}

/// Times `part` and `floor` alternately, call by call, and returns (median part call, median
/// floor call, ratio of the medians, median over rounds of the ratio of summed times).
fn pair(rounds: usize, reps: usize, part: &mut dyn FnMut(), floor: &mut dyn FnMut()) -> [f64; 4] {
    let (mut p_calls, mut f_calls, mut round_ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (mut p_sum, mut f_sum) = (0f64, 0f64);
        for _ in 0..reps {
            let t0 = Instant::now();
            part();
            let t1 = Instant::now();
            floor();
            let t2 = Instant::now();
            let (p, f) = ((t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64());
            p_sum += p;
            f_sum += f;
            p_calls.push(p);
            f_calls.push(f);
        }
        round_ratios.push(p_sum / f_sum);
    }
    let (p, f) = (median(p_calls), median(f_calls));
    [p, f, p / f, median(round_ratios)]
}

/// For each chain length and each part (verify with a warm key cache, verify cold, the old
/// strict function, decode, the validated-key signature checks alone), alternates the part and
/// the floor call by call ({ROUNDS} rounds of ~300 signature checks per side) and prints the
/// ratio of the median call times: a call preempted by another process on the shared machine
/// is an outlier that the median ignores, and both sides of a pair run in the same cache
/// state. For verify/floor it also prints the median over rounds of the ratio of summed times,
/// which counts preemptions.
fn paired_ratios() {
    const ROUNDS: usize = 15;
    let empty = RevocationList::new();
    let ctx = ctx(&empty);
    let fx = fixtures();
    let mut keys: HashMap<[u8; 32], ValidatedKey> = HashMap::new();
    println!(
        "\npaired ratios to the floor = (N+1) x dalek VerifyingKey::verify_strict: ratio of median \
         call times, each part alternated call by call with the floor ({ROUNDS} rounds x ~300 \
         signature checks per side)"
    );
    println!(
        "{:>6} {:>10} {:>13} {:>12} {:>12} {:>13} {:>11} {:>20}",
        "chain",
        "floor µs",
        "verify/floor",
        "cold/floor",
        "old/floor",
        "decode/floor",
        "sigs/floor",
        "verify (round sums)"
    );
    for f in &fx {
        let reps = (300 / (f.n + 1)).max(1);
        let vkeys: Vec<(ValidatedKey, [u8; 32], [u8; 64])> = f
            .raw
            .iter()
            .map(|(k, d, s)| (ValidatedKey::from_bytes(k).unwrap(), *d, *s))
            .collect();
        let mut fl = || floor(&f.floor);
        let warm = pair(
            ROUNDS,
            reps,
            &mut || {
                verify_with_keys(black_box(&f.dct), &ctx, &mut keys).unwrap();
            },
            &mut fl,
        );
        let cold = pair(
            ROUNDS,
            reps,
            &mut || {
                verify(black_box(&f.dct), &ctx).unwrap();
            },
            &mut fl,
        );
        let old = pair(ROUNDS, reps, &mut || old_strict(&f.raw), &mut fl);
        let dec = pair(
            ROUNDS,
            reps,
            &mut || {
                decode_blocks(black_box(&f.dct)).unwrap();
            },
            &mut fl,
        );
        let sigs = pair(ROUNDS, reps, &mut || validated(&vkeys), &mut fl);
        println!(
            "{:>6} {:>10.1} {:>13.3} {:>12.3} {:>12.3} {:>13.3} {:>11.3} {:>20.3}",
            f.n,
            warm[1] * 1e6,
            warm[2],
            cold[2],
            old[2],
            dec[2],
            sigs[2],
            warm[3]
        );
    }
}

/// The tokens as the Node verifier reads them.
fn node_fixture_json(fx: &[Fixture]) -> String {
    let tokens: Vec<serde_json::Value> = fx
        .iter()
        .map(|f| serde_json::json!({ "n": f.n, "token": f.dct.token }))
        .collect();
    serde_json::json!({ "root": key(0).principal_id(), "tokens": tokens }).to_string()
}

/// Runs the Node verifier (benches/node/verify.mjs) on the same tokens, alternating with the
/// reference in the same process run, and prints per-token times and the Node/reference ratio.
fn node_side_by_side() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/node");
    let node_ok = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node_ok {
        println!("\nnode not found: skipping the side-by-side with the Node verifier");
        return;
    }
    if !dir.join("node_modules/@noble/ed25519").exists() {
        let ok = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            println!("\n`npm ci` failed in {dir:?}: skipping the Node side-by-side");
            return;
        }
    }
    let empty = RevocationList::new();
    let ctx = ctx(&empty);
    let fx = fixtures();
    let fixture_path =
        std::env::temp_dir().join(format!("dos-node-bench-{}.json", std::process::id()));
    std::fs::write(&fixture_path, node_fixture_json(&fx)).unwrap();
    const ROUNDS: usize = 3;
    // per chain: (rust warm µs, rust cold µs, node strict µs, node cached-keys µs) per round
    let mut per: Vec<Vec<[f64; 4]>> = vec![Vec::new(); fx.len()];
    let mut keys: HashMap<[u8; 32], ValidatedKey> = HashMap::new();
    for _ in 0..ROUNDS {
        let rust: Vec<(f64, f64)> = fx
            .iter()
            .map(|f| {
                let reps = (90 / (f.n + 1)).max(5);
                let t = Instant::now();
                for _ in 0..reps {
                    verify_with_keys(black_box(&f.dct), &ctx, &mut keys).unwrap();
                }
                let warm = t.elapsed().as_secs_f64() * 1e6 / reps as f64;
                let t = Instant::now();
                for _ in 0..reps {
                    verify(black_box(&f.dct), &ctx).unwrap();
                }
                (warm, t.elapsed().as_secs_f64() * 1e6 / reps as f64)
            })
            .collect();
        let out = std::process::Command::new("node")
            .arg(dir.join("verify.mjs"))
            .arg(&fixture_path)
            .output()
            .unwrap();
        if !out.status.success() {
            println!(
                "\nNode verifier failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let _ = std::fs::remove_file(&fixture_path);
            return;
        }
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for (i, r) in report["results"].as_array().unwrap().iter().enumerate() {
            per[i].push([
                rust[i].0,
                rust[i].1,
                r["strictUs"].as_f64().unwrap(),
                r["cachedKeysUs"].as_f64().unwrap(),
            ]);
        }
    }
    let _ = std::fs::remove_file(&fixture_path);
    println!(
        "\nNode (@noble/ed25519, strict profile) vs reference on the same tokens (median of {ROUNDS} alternating rounds)"
    );
    println!(
        "{:>6} {:>12} {:>12} {:>14} {:>16} {:>14} {:>18}",
        "chain",
        "ref warm µs",
        "ref cold µs",
        "node strict µs",
        "node cached µs",
        "strict/warm",
        "cached/warm"
    );
    for (f, rows) in fx.iter().zip(&per) {
        let m = |i: usize| median(rows.iter().map(|r| r[i]).collect());
        let ratio = |i: usize| median(rows.iter().map(|r| r[i] / r[0]).collect());
        println!(
            "{:>6} {:>12.1} {:>12.1} {:>14.1} {:>16.1} {:>14.1} {:>18.1}",
            f.n,
            m(0),
            m(1),
            m(2),
            m(3),
            ratio(2),
            ratio(3)
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
    if bench_mode() && std::env::var_os("DOS_BENCH_NO_NODE").is_none() {
        node_side_by_side();
    }
}
