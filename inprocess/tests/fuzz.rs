//! The in-process differential fuzzer (feature `fuzz`): the reference against itself finds
//! nothing; seeded bugs (a `dct.verify` that ignores expiry, a glob matcher whose `*` crosses
//! segments, a method that panics, and the reference's catalogued faults that leave a
//! contract's, an attestation's or a revocation entry's signature unchecked) are found within
//! a bounded number of generated inputs, and
//! their finding files load with the corpus loader and replay: failing against the buggy
//! implementation, passing against the reference. Deterministic: fixed inputs, no timing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::PathBuf;

use delegateos_inprocess::fuzz::{
    self, Finding, Fuzzer, Kind, Mutation, Reference, Signing, Stage, Step,
};
use delegateos_inprocess::{cases_in, run_cases, Answer, Implementation, Options, Status, Value};
use delegateos_reference::ops::{self, Outcome};
use delegateos_vectors::format::Severity;
use delegateos_vectors::judge::ActualOutcome;
use serde_json::json;

/// The `i`th generated fuzzer input: 12 bytes of SplitMix64 over `i`.
fn input(i: u64) -> Vec<u8> {
    let mut z = i
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x1234_5678);
    let mut out = Vec::new();
    for _ in 0..2 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut x = z;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        out.extend_from_slice(&(x ^ (x >> 31)).to_le_bytes()[..6]);
    }
    out
}

fn reference(op: &str, input: &Value) -> Answer {
    ActualOutcome::from(&ops::run(op, input)).into()
}

/// `dct.verify` that never checks expiry: where the reference answers `expired`, it accepts.
struct IgnoresExpiry;

impl Implementation for IgnoresExpiry {
    fn dct_verify(&self, input: &Value) -> Answer {
        match ops::run("dct.verify", input) {
            Outcome::Error { code, .. } if code == "expired" => {
                Answer::ok(json!({ "valid": true }))
            }
            other => ActualOutcome::from(&other).into(),
        }
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        reference(op, input)
    }
}

/// A glob matcher whose single `*` crosses segments (it is matched as `**`).
struct StarCrossesSegments;

impl Implementation for StarCrossesSegments {
    fn glob_match(&self, input: &Value) -> Answer {
        let mut wrong = input.clone();
        if let Some(p) = input["pattern"].as_str() {
            let segments: Vec<&str> = p
                .split('/')
                .map(|s| if s == "*" { "**" } else { s })
                .collect();
            wrong["pattern"] = Value::from(segments.join("/"));
        }
        reference("glob.match", &wrong)
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        reference(op, input)
    }
}

/// A glob matcher that panics on a `**` pattern.
struct PanicsOnGlobstar;

impl Implementation for PanicsOnGlobstar {
    fn glob_match(&self, input: &Value) -> Answer {
        if input["pattern"].as_str().is_some_and(|p| p.contains("**")) {
            panic!("globstar not supported");
        }
        reference("glob.match", input)
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        reference(op, input)
    }
}

/// What the implementation answered (in process, always something).
fn actual(f: &Finding) -> &Value {
    f.actual.as_ref().expect("an answer")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "delegateos-inprocess-fuzz-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The first finding of `imp` over inputs `0..bound`, with its index.
fn first_finding<I: Implementation>(fuzzer: &Fuzzer, imp: &I, bound: u64) -> (u64, Finding) {
    for i in 0..bound {
        if let Step::Finding(f) = fuzzer.step(imp, &input(i)) {
            return (i, *f);
        }
    }
    panic!("no finding within {bound} inputs");
}

/// Writes `f`, loads the directory as `run --vectors DIR` does, and replays it: it must fail
/// against `buggy` (with `want`), graded as the fuzzer graded it (level, severity and the run
/// report's finding key: the file cites what the finding was graded by), and pass against the
/// reference.
fn replays<I: Implementation>(f: &Finding, buggy: &I, name: &str, want: fn(Status) -> bool) {
    let dir = scratch(name);
    let path = f.write_new(&dir).unwrap().expect("a new file");
    assert_eq!(
        f.write_new(&dir).unwrap(),
        None,
        "one file per finding kind"
    );
    let cases =
        cases_in(&dir, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].case.op, f.op);
    let against_buggy = run_cases(buggy, &cases);
    assert!(
        want(against_buggy[0].status),
        "{}: {:?}\n{}",
        f.summary(),
        against_buggy[0].status,
        against_buggy[0].message
    );
    assert!(against_buggy[0].fails(&Options {
        fail_on_hardening: true,
        ..Options::default()
    }));
    let case = &cases[0].case;
    let replayed = delegateos_vectors::outcome::assess(
        &delegateos_vectors::outcome::Subject {
            op: &case.op,
            flags: &case.flags,
            requirements: &case.requirements,
            expectation: Some(&case.expect),
            stake: Some(&case.stake),
        },
        &against_buggy[0].outcome,
    )
    .expect("a finding");
    assert_eq!(
        (
            against_buggy[0].level,
            replayed.severity,
            replayed.key.as_str()
        ),
        (f.level, f.severity, f.report_key.as_str()),
        "{}: the replay is graded otherwise than the fuzz run",
        f.summary()
    );
    let against_reference = run_cases(&Reference, &cases);
    assert_eq!(
        against_reference[0].status,
        Status::Passed,
        "{}",
        against_reference[0].message
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_reference_against_itself_finds_nothing() {
    fuzz::install_panic_hook();
    let fuzzer = Fuzzer::new().unwrap();
    let mut agreed = 0;
    let mut ops_run = BTreeSet::new();
    let mut codes = BTreeSet::new();
    // Mutations of valid tokens that reach past the signature step: re-signed token edits
    // the reference still accepts, or refuses for a reason after §10.1 step 3.
    let mut past_signature = 0;
    // Re-encoded token texts (pretty, reversed keys, BOM, padding, …).
    let mut encoded = 0;
    for i in 0..3000 {
        let bytes = input(i);
        let c = fuzzer.candidate(&bytes);
        match fuzzer.step(&Reference, &bytes) {
            Step::Finding(f) => panic!("input {i}: {}\n{}", f.summary(), f.message),
            Step::Agreed => agreed += 1,
            Step::NotRun | Step::Skipped => {}
        }
        ops_run.insert(c.op.clone());
        let code = match c.reference() {
            Outcome::Ok { .. } => "ok".to_owned(),
            Outcome::Error { code, .. } => code.clone(),
            Outcome::Unsupported { .. } => "unsupported".to_owned(),
        };
        // A token field edited before re-signing, no signature forged.
        let token_edit = c.mutations().iter().any(|m| {
            matches!(
                m,
                Mutation::Set {
                    stage: Stage::Token,
                    ..
                } | Mutation::Remove {
                    stage: Stage::Token,
                    ..
                }
            )
        }) && !c.mutations().iter().any(|m| {
            matches!(m, Mutation::Forge { .. })
                || matches!(
                    m,
                    Mutation::Set {
                        stage: Stage::Signed,
                        ..
                    } | Mutation::Remove {
                        stage: Stage::Signed,
                        ..
                    } | Mutation::Insert {
                        stage: Stage::Signed,
                        ..
                    }
                )
        });
        if c.op == "dct.verify"
            && token_edit
            && !["invalid_signature", "malformed_token", "unsupported"].contains(&code.as_str())
        {
            past_signature += 1;
        }
        encoded += usize::from(
            c.mutations()
                .iter()
                .any(|m| matches!(m, Mutation::Encode { .. })),
        );
        codes.insert(code);
    }
    assert!(agreed > 2500, "only {agreed} of 3000 cases ran");
    assert_eq!(
        ops_run.len(),
        fuzz::FUZZED_OPERATIONS.len(),
        "operations reached: {ops_run:?}"
    );
    for code in [
        "ok",
        "expired",
        "attenuation_violation",
        "invalid_signature",
        "malformed_token",
    ] {
        assert!(codes.contains(code), "no case answered {code}: {codes:?}");
    }
    assert!(encoded > 20, "only {encoded} cases re-encoded a token");
    assert!(
        past_signature > 50,
        "only {past_signature} re-signed token edits reached past the signature step"
    );
}

#[test]
fn same_bytes_same_case_and_same_finding() {
    fuzz::install_panic_hook();
    let fuzzer = Fuzzer::for_operations(&["dct.verify"]).unwrap();
    for i in 0..50 {
        let (a, b) = (fuzzer.candidate(&input(i)), fuzzer.candidate(&input(i)));
        assert_eq!(
            (a.input(), a.mutations(), &a.origin),
            (b.input(), b.mutations(), &b.origin)
        );
    }
    let (i, f) = first_finding(&fuzzer, &IgnoresExpiry, 2000);
    let Step::Finding(again) = fuzzer.step(&IgnoresExpiry, &input(i)) else {
        panic!("input {i} found nothing the second time");
    };
    assert_eq!(
        (&f.key, &f.input, &f.mutations, f.severity),
        (&again.key, &again.input, &again.mutations, again.severity)
    );
    assert_eq!(
        serde_json::to_value(f.file()).unwrap(),
        serde_json::to_value(again.file()).unwrap()
    );
}

#[test]
fn a_verifier_that_ignores_expiry_is_found_and_its_finding_replays() {
    fuzz::install_panic_hook();
    // Every `dct.verify` seed is a token the reference accepts: only a mutation can expire it.
    let fuzzer = Fuzzer::for_operations(&["dct.verify"]).unwrap();
    let (i, f) = first_finding(&fuzzer, &IgnoresExpiry, 2000);
    assert_eq!(f.kind, Kind::Disagreement, "input {i}: {}", f.summary());
    assert!(
        matches!(&f.reference, Outcome::Error { code, .. } if code == "expired"),
        "{f:?}"
    );
    assert_eq!(actual(&f)["outcome"], "ok");
    assert!(
        !f.mutations.is_empty(),
        "a valid seed needs a mutation to expire"
    );
    assert!(f.severity >= Severity::High, "{}", f.summary());
    assert!(
        f.key
            .contains("reference expired / implementation accepted"),
        "{}",
        f.key
    );
    replays(&f, &IgnoresExpiry, "expiry", |s| {
        matches!(s, Status::Failed(_))
    });

    // The expiry reached through a re-signed token edit (not only the context's `now`):
    // the signatures still verify, so the bug is reached past §10.1 step 3.
    let resigned = (0..4000).find_map(|i| match fuzzer.step(&IgnoresExpiry, &input(i)) {
        Step::Finding(f)
            if f.mutations.iter().all(|m| matches!(m, Mutation::Set { stage: Stage::Token, path, .. } if path.iter().any(|s| matches!(s, fuzz::Seg::Key(k) if k == "expiresAt")))) =>
        {
            Some(f)
        }
        _ => None,
    });
    let f = resigned.expect("an expiry reached by a re-signed expiresAt edit within 4000 inputs");
    replays(&f, &IgnoresExpiry, "expiry-resigned", |s| {
        matches!(s, Status::Failed(_))
    });
}

#[test]
fn a_glob_star_that_crosses_segments_is_found_and_its_finding_replays() {
    fuzz::install_panic_hook();
    let fuzzer = Fuzzer::for_operations(&["glob.match"]).unwrap();
    let (_, f) = first_finding(&fuzzer, &StarCrossesSegments, 2000);
    assert_eq!(f.kind, Kind::Disagreement, "{}", f.summary());
    assert_eq!(actual(&f)["output"]["matches"], true, "{}", f.summary());
    assert!(f.severity >= Severity::High, "{}", f.summary());
    replays(&f, &StarCrossesSegments, "glob", |s| {
        matches!(s, Status::Failed(_))
    });
}

#[test]
fn a_panic_is_a_crash_finding_unless_asked_to_propagate() {
    fuzz::install_panic_hook();
    let fuzzer = Fuzzer::for_operations(&["glob.match"]).unwrap();
    let (i, f) = first_finding(&fuzzer, &PanicsOnGlobstar, 2000);
    assert_eq!(f.kind, Kind::Crash, "{}", f.summary());
    assert!(
        f.message.contains("globstar not supported"),
        "{}",
        f.message
    );
    assert_eq!(f.severity, Severity::Critical, "{}", f.summary());
    replays(&f, &PanicsOnGlobstar, "panic", |s| s == Status::Errored);
    let propagating = fuzzer.clone().propagate_panics(true);
    let unwound = std::panic::catch_unwind(|| propagating.step(&PanicsOnGlobstar, &input(i)));
    assert!(unwound.is_err(), "the panic was caught");
}

const OUTPUT_VERIFICATION: &[&str] = &[
    "unknown_check",
    "invalid_params",
    "unsupported_pattern",
    "invalid_schema",
    "invalid_spec",
    "limit_exceeded",
];

/// `check.run` that answers another code of the reference's code's family
/// (`spec/error-codes.md` §11, output-verification).
struct OtherCodeOfTheFamily;

impl Implementation for OtherCodeOfTheFamily {
    fn check_run(&self, input: &Value) -> Answer {
        match ops::run("check.run", input) {
            Outcome::Error { code, detail } if OUTPUT_VERIFICATION.contains(&code.as_str()) => {
                let other = if code == "invalid_spec" {
                    "invalid_params"
                } else {
                    "invalid_spec"
                };
                Answer::error(other, detail)
            }
            other => ActualOutcome::from(&other).into(),
        }
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        reference(op, input)
    }
}

/// `dct.verify` that checks the context's `now` before the token (D7 leaves the order open):
/// `malformed_token` for a `now` that is no profile timestamp.
struct NowFirst;

impl Implementation for NowFirst {
    fn dct_verify(&self, input: &Value) -> Answer {
        let now = input.pointer("/context/now").and_then(Value::as_str);
        if now.is_some_and(|n| delegateos_reference::timestamp::Timestamp::parse(n).is_err()) {
            return Answer::error("malformed_token", "now is not a profile timestamp");
        }
        reference("dct.verify", input)
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        reference(op, input)
    }
}

/// As `fuzz` judges: another code of the family is a hardening, low `other_code` finding,
/// never a disagreement; and its file replays as `OtherCode` (not failed) against it.
#[test]
fn another_code_of_the_family_is_a_hardening_finding_not_a_disagreement() {
    fuzz::install_panic_hook();
    let fuzzer = Fuzzer::for_operations(&["check.run"]).unwrap();
    let mut other_codes = Vec::new();
    for i in 0..1500 {
        if let Step::Finding(f) = fuzzer.step(&OtherCodeOfTheFamily, &input(i)) {
            assert_eq!(f.kind, Kind::OtherCode, "input {i}: {}", f.summary());
            other_codes.push(f);
        }
    }
    let f = other_codes
        .first()
        .expect("no other-code finding in 1500 inputs");
    assert_eq!(f.level, delegateos_vectors::format::Level::Hardening);
    assert_eq!(f.severity, Severity::Low, "{}", f.summary());
    replays(f, &OtherCodeOfTheFamily, "other-code", |s| {
        s == Status::OtherCode
    });
}

/// D7: a verifier that reports a malformed `now` before the token's own fault agrees. (A
/// malformed `now` on a token with a fault of its own is rare among generated inputs: 440 of
/// the first 30,000 make `now` malformed, and of those only inputs 8,756 and 13,143 also carry
/// a token fault the reference reports instead; they are run besides the first 3,000.)
#[test]
fn the_other_reading_of_a_malformed_now_is_no_finding() {
    fuzz::install_panic_hook();
    let fuzzer = Fuzzer::for_operations(&["dct.verify"]).unwrap();
    let mut reached = 0;
    for i in (0..3000).chain([8756, 13143]) {
        let bytes = input(i);
        if let Step::Finding(f) = fuzzer.step(&NowFirst, &bytes) {
            panic!("input {i}: {}\n{}", f.summary(), f.message);
        }
        let c = fuzzer.candidate(&bytes);
        let malformed = c
            .input()
            .pointer("/context/now")
            .and_then(Value::as_str)
            .is_some_and(|n| delegateos_reference::timestamp::Timestamp::parse(n).is_err());
        let differs =
            !matches!(c.reference(), Outcome::Error { code, .. } if code == "malformed_token");
        reached += usize::from(malformed && differs);
    }
    assert!(
        reached >= 2,
        "only {reached} cases where the reference answers otherwise for a malformed now"
    );
}

/// The reference with one catalogued fault switched on (`reference/src/faults.rs`) while it
/// answers as the implementation: the fuzzer's own reference calls stay correct.
struct Faulty(&'static str);

impl Implementation for Faulty {
    fn fallback(&self, op: &str, input: &Value) -> Answer {
        delegateos_reference::faults::with(self.0, || reference(op, input))
    }
}

/// Contracts, attestations and revocation lists are re-signed (and an attestation rehashed)
/// after their edits, as `fuzz --op` does: edited structures the reference still accepts, or
/// refuses for a reason after the signature check, are generated for each.
#[test]
fn signed_structures_are_re_signed_after_their_edits() {
    for op in [
        "contract.verify_signature",
        "attestation.verify",
        "revocation.from_json",
    ] {
        let fuzzer = Fuzzer::for_operations(&[op]).unwrap();
        let (mut resigned, mut accepted) = (0, 0);
        for i in 0..600 {
            let c = fuzzer.candidate(&input(i));
            let c = &c.case;
            assert!(c.mutations.is_empty(), "{op}: a token candidate");
            if c.signing == Signing::Keep || c.edits.is_empty() {
                continue;
            }
            resigned += 1;
            let signature_fault = matches!(&c.reference, Outcome::Error { code, .. }
                if code.contains("signature"));
            let ok = match &c.reference {
                Outcome::Ok { output } => {
                    output.get("valid") != Some(&Value::Bool(false))
                        && output.get("error").is_none()
                }
                _ => false,
            };
            accepted += usize::from(ok && !signature_fault);
        }
        assert!(resigned > 200, "{op}: only {resigned} re-signed candidates");
        assert!(
            accepted >= 10,
            "{op}: only {accepted} edited, re-signed candidates accepted"
        );
    }
}

/// A seeded bug in each signed structure the operation fuzzer re-signs is found, and its
/// finding replays: failing against the faulty reference, passing against the reference.
#[test]
fn an_unchecked_signature_of_a_contract_an_attestation_or_a_revocation_entry_is_found() {
    fuzz::install_panic_hook();
    for (op, fault) in [
        ("contract.verify_signature", "contract.signature-unchecked"),
        ("attestation.verify", "attestation.signature-unchecked"),
        (
            "revocation.from_json",
            "revocation.entry-signature-unchecked",
        ),
    ] {
        let fuzzer = Fuzzer::for_operations(&[op]).unwrap();
        let faulty = Faulty(fault);
        // The first finding where the faulty reference accepts what the reference refuses.
        let (i, f) = (0..3000)
            .find_map(|i| match fuzzer.step(&faulty, &input(i)) {
                Step::Finding(f) if f.key.contains("implementation accepted") => Some((i, *f)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{fault}: no accepting finding within 3000 inputs"));
        assert_eq!(
            f.kind,
            Kind::Disagreement,
            "{fault}, input {i}: {}",
            f.summary()
        );
        assert_eq!(f.op, op);
        replays(&f, &faulty, fault, |s| matches!(s, Status::Failed(_)));
    }
}

/// Issue 47: a finding of an operation other than `dct.verify` is graded by the reference's
/// answer to the mutated input, and its file replays to the same grade. The reference with its
/// catalogued fault `mcp.tool-name-casefold` forwards a renamed tool the reference denies
/// `capability_not_granted`: an authorization bypass (what the corpus cites for that denial),
/// whichever seed — a spend case among them — the tool was renamed in.
#[test]
fn a_casefolded_tool_name_is_graded_by_the_denial_and_replays_alike() {
    fuzz::install_panic_hook();
    let fuzzer = Fuzzer::for_operations(&["mcp.call"]).unwrap();
    let faulty = Faulty("mcp.tool-name-casefold");
    let (i, f) = (0..3000)
        .find_map(|i| match fuzzer.step(&faulty, &input(i)) {
            Step::Finding(f) if f.key.contains("reference capability_not_granted") => Some((i, *f)),
            _ => None,
        })
        .expect("a renamed tool denied by the reference within 3000 inputs");
    assert_eq!(f.kind, Kind::Disagreement, "input {i}: {}", f.summary());
    assert_eq!(
        actual(&f)["output"]["decision"],
        "forward",
        "{}",
        f.summary()
    );
    assert_eq!(
        f.report_key,
        "mcp-authorization/authorization-bypass",
        "{}",
        f.summary()
    );
    assert_eq!(f.severity, Severity::Critical);
    // The seed answered otherwise: the grade is the denial's, not the seed's.
    let files = delegateos_vectors::corpus::load_embedded().unwrap();
    let seed = files
        .iter()
        .flat_map(|l| &l.file.cases)
        .find(|c| c.id == f.origin)
        .expect("the seed case");
    let seed_answer = delegateos_vectors::differential::answer_of_expected(
        "mcp.call",
        &seed.expect.outcomes()[0],
    );
    assert_ne!(seed_answer, "capability_not_granted", "{}", f.origin);
    assert_ne!(f.requirements, seed.requirements, "{}", f.origin);
    assert!(
        f.requirements.iter().any(|r| r == "MCP-CALL-VERIFY"),
        "{:?}",
        f.requirements
    );
    eprintln!("{} ({} → {seed_answer})", f.summary(), f.origin);
    replays(&f, &faulty, "casefold", |s| matches!(s, Status::Failed(_)));
}

/// `check.run` whose `regex_match` matches a number or boolean subject as its text, as
/// JavaScript's `String` writes it (safe integers and booleans only, where that is their JSON
/// text): D12's other reading (py-wrap's `regex-coerces-to-string`).
struct StringifiesSubject;

impl StringifiesSubject {
    /// The input with its subject stringified, when it is such a subject.
    fn stringified(input: &Value) -> Option<Value> {
        if input["name"] != "regex_match" {
            return None;
        }
        let text = |v: &Value| match v {
            Value::Bool(_) => Some(Value::from(v.to_string())),
            Value::Number(n) if n.as_i64().is_some_and(|i| i.abs() < (1 << 53)) => {
                Some(Value::from(v.to_string()))
            }
            _ => None,
        };
        let mut out = input.clone();
        match input["params"].get("field") {
            None => out["output"] = text(&input["output"])?,
            Some(Value::String(f)) if !f.contains('.') => {
                let member = input["output"].as_object()?.get(f)?;
                out["output"][f] = text(member)?;
            }
            Some(_) => return None,
        }
        Some(out)
    }
}

impl Implementation for StringifiesSubject {
    fn check_run(&self, input: &Value) -> Answer {
        reference(
            "check.run",
            &Self::stringified(input).unwrap_or_else(|| input.clone()),
        )
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        reference(op, input)
    }
}

/// D12 (issue 47): a `regex_match` that stringifies a non-string subject is the decision's
/// other reading, which the corpus accepts; the fuzzer computes it for each edited input, so
/// the inputs where this implementation answers otherwise than the reference are no finding.
#[test]
fn the_stringified_regex_reading_is_no_finding() {
    fuzz::install_panic_hook();
    let fuzzer = Fuzzer::for_operations(&["check.run"]).unwrap();
    let mut other_reading = 0;
    for i in 0..3000 {
        let bytes = input(i);
        if let Step::Finding(f) = fuzzer.step(&StringifiesSubject, &bytes) {
            panic!("input {i}: {}\n{}", f.summary(), f.message);
        }
        let c = fuzzer.candidate(&bytes);
        let Some(stringified) = StringifiesSubject::stringified(c.input()) else {
            continue;
        };
        let ours = ops::run("check.run", c.input());
        let theirs = ops::run("check.run", &stringified);
        if let (Outcome::Ok { output: a }, Outcome::Ok { output: b }) = (&ours, &theirs) {
            other_reading += usize::from(a["passed"] != b["passed"]);
        }
    }
    eprintln!("{other_reading} inputs answered by the stringified reading otherwise");
    assert!(
        other_reading >= 5,
        "only {other_reading} inputs where the stringified reading answers otherwise"
    );
}
