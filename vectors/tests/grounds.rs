//! Every case states its ground and its stake (issue 36), and the statements hold:
//! - a `text` ground quotes the upstream protocol spec or architecture document verbatim
//!   (whitespace-normalized; `spec/upstream/` holds the two documents unmodified);
//! - a `decision` ground names a decision of `spec/decisions.md` and the expectation accepts
//!   every reasonable outcome (`acceptable`), or the ground says why the text admits one;
//! - a `hardening` ground says why;
//! - the case's level is its ground's; no corpus case carries a fuzzer's `differential` ground;
//! - every stake names an effect of `spec/severity.md` §2.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use delegateos_vectors::corpus::load_embedded;
use delegateos_vectors::format::{Case, Expectation, Ground};
use delegateos_vectors::severity::model;

fn normalized(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn upstream(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("spec/upstream")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cases() -> Vec<Case> {
    load_embedded()
        .expect("the embedded corpus loads")
        .into_iter()
        .flat_map(|f| f.file.cases)
        .collect()
}

/// The problems of one case's ground and stake (empty when it holds).
fn problems(case: &Case, spec: &str, architecture: &str, decisions: &str) -> Vec<String> {
    let mut out = Vec::new();
    if case.level != case.ground.level() {
        out.push(format!(
            "level {} differs from its ground's ({})",
            case.level.as_str(),
            case.ground.level().as_str()
        ));
    }
    match &case.ground {
        Ground::Text {
            source,
            section,
            quote,
        } => {
            let text = match source.as_str() {
                "spec" => spec,
                "architecture" => architecture,
                other => {
                    out.push(format!("unknown source {other:?}"));
                    ""
                }
            };
            let q = normalized(quote);
            if q.is_empty() || !text.contains(&q) {
                out.push(format!(
                    "the quote of {source} {section} is not in the upstream text: {quote:?}"
                ));
            }
        }
        Ground::Decision { decision, reason } => {
            if !decisions.contains(&format!("## {decision} ")) {
                out.push(format!("{decision} is not a decision of spec/decisions.md"));
            }
            let several = matches!(&case.expect, Expectation::Acceptable { outcomes, .. }
                if outcomes.len() >= 2);
            if !several && reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
                out.push(format!(
                    "a decision ({decision}) with one outcome and no reason why the text admits \
                     only it"
                ));
            }
        }
        Ground::Hardening { reason } => {
            if reason.trim().is_empty() {
                out.push("a hardening ground without a reason".to_owned());
            }
        }
        Ground::Differential { .. } => out.push("a fuzzer's ground in the corpus".to_owned()),
    }
    let m = model();
    for (direction, effect) in [
        ("granted", &case.stake.granted),
        ("refused", &case.stake.refused),
        ("wrongOutput", &case.stake.wrong_output),
        ("crashOrHang", &case.stake.crash_or_hang),
    ] {
        if m.effect(effect).is_none() {
            out.push(format!(
                "stake {direction}: {effect:?} is no effect of spec/severity.md"
            ));
        }
    }
    out
}

#[test]
fn every_case_states_a_ground_that_holds_and_a_stake() {
    let spec = normalized(&upstream("delegateos-protocol-spec-v0.2.txt"));
    let architecture = normalized(&upstream("delegateos-architecture-v0.2.md"));
    let decisions = delegateos_vectors::flags::DECISIONS;
    let mut bad = Vec::new();
    let all = cases();
    assert!(all.len() > 2000, "the corpus is embedded");
    for case in &all {
        for p in problems(case, &spec, &architecture, decisions) {
            bad.push(format!("{}: {p}", case.id));
        }
    }
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The check can fail: a paraphrased quote, a single-outcome decision without a reason, a
/// level that is not its ground's and an unknown effect are each caught.
#[test]
fn the_ground_check_catches_each_kind_of_false_statement() {
    let spec = normalized(&upstream("delegateos-protocol-spec-v0.2.txt"));
    let architecture = normalized(&upstream("delegateos-architecture-v0.2.md"));
    let decisions = delegateos_vectors::flags::DECISIONS;
    let all = cases();
    let text = all
        .iter()
        .find(|c| matches!(c.ground, Ground::Text { .. }))
        .unwrap();
    assert!(problems(text, &spec, &architecture, decisions).is_empty());
    let mut paraphrased = text.clone();
    if let Ground::Text { quote, .. } = &mut paraphrased.ground {
        quote.push_str(" (as we read it)");
    }
    assert_eq!(
        problems(&paraphrased, &spec, &architecture, decisions).len(),
        1
    );
    let mut relabelled = text.clone();
    relabelled.level = delegateos_vectors::format::Level::Hardening;
    assert_eq!(
        problems(&relabelled, &spec, &architecture, decisions).len(),
        1
    );
    let mut single = text.clone();
    single.ground = Ground::Decision {
        decision: "D5".to_owned(),
        reason: None,
    };
    single.level = delegateos_vectors::format::Level::Decision;
    assert!(matches!(
        single.expect,
        Expectation::Valid { .. } | Expectation::Invalid { .. }
    ));
    assert_eq!(problems(&single, &spec, &architecture, decisions).len(), 1);
    let mut unknown = text.clone();
    unknown.stake.granted = "mild-inconvenience".to_owned();
    assert_eq!(problems(&unknown, &spec, &architecture, decisions).len(), 1);
}

/// `spec/upstream/` is the upstream text unmodified: where the seeds are on this machine
/// (`../shared/seeds/` next to the checkout), the copies equal them byte for byte.
#[test]
fn the_upstream_copies_equal_the_seeds_where_present() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for name in [
        "delegateos-protocol-spec-v0.2.txt",
        "delegateos-architecture-v0.2.md",
    ] {
        let seed = root.join("shared/seeds").join(name);
        if let Ok(original) = std::fs::read_to_string(&seed) {
            assert_eq!(
                original,
                upstream(name),
                "{name} differs from {}",
                seed.display()
            );
        }
    }
}
