//! DCT create / attenuate / verify end to end: the architecture §11.1 chain, one case per
//! denial type and step, precedence (D7), revocation (D6), depth (D4), the scenarios of the former fault switches, linear
//! cost,
//! and properties (attenuation never widens, revocation ids ignore key order).

// Test helpers build known-good fixtures; a failure to build one is a test failure, so they
// may unwrap (clippy's allow-unwrap-in-tests covers only #[test] functions themselves).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_reference::attenuate::{
    assemble, attenuate, create, sign_attenuation, sign_authority, AttenuateParams, CreateParams,
};
use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::Keypair;
use delegateos_reference::encoding::b64u_encode;
use delegateos_reference::glob::capability_subset;
use delegateos_reference::json::parse_strict;
use delegateos_reference::revocation::{create_entry, RevocationList, Scope};
use delegateos_reference::token::{
    decode, encode, inspect, revocation_id_of_canonical, revocation_ids, Capability, SerializedDct,
    SignedJsonToken,
};
use delegateos_reference::verify::{
    evaluate, verify, AuthorizedScope, Denial, VerificationContext,
};
use proptest::prelude::*;

/// Revocation id of a block given as JSON: base64url(BLAKE2b-256(canonicalize(block))).
fn revocation_id_of(block: &serde_json::Value) -> String {
    revocation_id_of_canonical(&canonicalize(block).unwrap())
}

const EXP: &str = "2026-01-01T01:00:00Z";
const NOW: &str = "2026-01-01T00:30:00Z";

fn kp(n: u8) -> Keypair {
    Keypair::from_seed(&[n; 32])
}

fn cap(s: &str) -> Capability {
    let mut it = s.splitn(3, ':');
    let (ns, act, res) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
    Capability::new(ns, act, res)
}

fn root_token(depth: u64) -> SignedJsonToken {
    create(
        &kp(1),
        CreateParams {
            delegatee: kp(2).principal_id(),
            capabilities: vec![cap("web:search:*"), cap("docs:read:/project/*")],
            contract_id: "ct_a1b2c3d4e5f6".into(),
            delegation_id: "del_000000000001".into(),
            parent_delegation_id: "del_000000000000".into(),
            chain_depth: 0,
            max_chain_depth: depth,
            max_budget_microcents: 1_000_000_000,
            expires_at: EXP.into(),
            issued_at: "2026-01-01T00:00:00Z".into(),
        },
    )
    .unwrap()
}

fn orchestrator_params() -> AttenuateParams {
    AttenuateParams {
        delegatee: kp(3).principal_id(),
        delegation_id: "del_000000000002".into(),
        contract_id: "ct_a1b2c3d4e5f6".into(),
        allowed_capabilities: Some(vec![cap("web:search:*")]),
        max_budget_microcents: Some(200_000_000),
        expires_at: None,
        max_chain_depth: Some(1),
    }
}

fn specialist_params() -> AttenuateParams {
    AttenuateParams {
        delegatee: kp(4).principal_id(),
        delegation_id: "del_000000000003".into(),
        contract_id: "ct_a1b2c3d4e5f6".into(),
        allowed_capabilities: Some(vec![cap("web:search:arxiv.org/*")]),
        max_budget_microcents: Some(50_000_000),
        expires_at: Some("2026-01-01T00:45:00Z".into()),
        max_chain_depth: Some(0),
    }
}

/// Root → orchestrator → specialist (architecture §11.1).
fn three_level() -> SignedJsonToken {
    let t = attenuate(&root_token(3), &kp(2), orchestrator_params()).unwrap();
    attenuate(&t, &kp(3), specialist_params()).unwrap()
}

fn ctx<'a>(revs: &'a RevocationList, req: &str) -> VerificationContext<'a> {
    let c = cap(req);
    VerificationContext {
        namespace: c.namespace,
        operation: c.action,
        resource: c.resource,
        now: NOW.into(),
        spent_microcents: 0,
        root_public_key: kp(1).principal_id(),
        revocations: revs,
    }
}

fn run(t: &SignedJsonToken, c: &VerificationContext<'_>) -> Result<AuthorizedScope, Denial> {
    verify(&encode(t), c)
}

fn code_step(r: Result<AuthorizedScope, Denial>) -> (String, String) {
    match r {
        Ok(_) => ("ok".into(), "-".into()),
        Err(d) => (d.code().into(), d.step().into()),
    }
}

fn cs(code: &str, step: &str) -> (String, String) {
    (code.into(), step.into())
}

#[test]
fn architecture_three_level_chain() {
    let revs = RevocationList::new();
    let t = three_level();
    let scope = run(&t, &ctx(&revs, "web:search:arxiv.org/abs")).unwrap();
    assert_eq!(scope.capabilities, vec![cap("web:search:arxiv.org/*")]);
    assert_eq!(scope.remaining_budget_microcents, 50_000_000);
    assert_eq!(scope.chain_depth, 2);
    assert_eq!(scope.max_chain_depth, 0);
    assert_eq!(scope.remaining_chain_depth, 0);
    assert_eq!(scope.delegation_id, "del_000000000003");
    let d = run(&t, &ctx(&revs, "docs:read:/project/a")).unwrap_err();
    assert_eq!((d.code(), d.step()), ("capability_not_granted", "7"));
    assert_eq!(d.to_json()["granted"][0]["resource"], "arxiv.org/*");

    // The same chain through the wire form and inspect.
    let i = inspect(&encode(&t)).unwrap();
    assert_eq!(i.delegatee, kp(4).principal_id());
    assert_eq!(i.expires_at, "2026-01-01T00:45:00Z");
    assert_eq!(i.chain_depth, 2);
    assert_eq!(i.revocation_ids, revocation_ids(&t));
    assert_eq!(decode(&encode(&t)).unwrap(), t);

    // evaluate = steps 1–6.
    let s = evaluate(&encode(&t), NOW, 10, &kp(1).principal_id(), &revs).unwrap();
    assert_eq!(s.remaining_budget_microcents, 49_999_990);
}

#[test]
fn widened_chain_is_rejected() {
    let revs = RevocationList::new();
    let orch = attenuate(&root_token(3), &kp(2), orchestrator_params()).unwrap();
    let mut wide = specialist_params();
    wide.allowed_capabilities = Some(vec![cap("docs:read:/project/*")]);
    let err = attenuate(&orch, &kp(3), wide.clone()).unwrap_err();
    assert_eq!(err.code(), "attenuation_violation");
    // Build it anyway with the unchecked builder, correctly signed: verify must deny at 4b.
    let mut atts = orch.attenuations.clone();
    let mut block = orch.attenuations[0].clone();
    block.attenuator = kp(3).principal_id();
    block.delegatee = wide.delegatee.clone();
    block.allowed_capabilities = wide.allowed_capabilities.clone();
    block.max_chain_depth = Some(0);
    atts.push(block);
    let mut sigs = orch.signatures.clone();
    sigs.push(sign_attenuation(&kp(3), &orch.authority, &atts));
    let forged = assemble(orch.authority.clone(), atts, sigs);
    let d = run(&forged, &ctx(&revs, "docs:read:/project/a")).unwrap_err();
    assert_eq!((d.code(), d.step()), ("attenuation_violation", "4b"));
    assert_eq!(d.to_json()["detail"], "capability expansion");
}

/// Rebuilds a token from blocks, re-signing every block correctly.
fn resign(mut t: SignedJsonToken, keys: &[u8]) -> SignedJsonToken {
    t.signatures = vec![sign_authority(&kp(keys[0]), &t.authority)];
    for i in 0..t.attenuations.len() {
        t.signatures.push(sign_attenuation(
            &kp(keys[i + 1]),
            &t.authority,
            &t.attenuations[..=i],
        ));
    }
    t
}

#[test]
fn every_step_denies_in_order() {
    let revs = RevocationList::new();
    let good = three_level();
    let req = "web:search:arxiv.org/abs";
    let c = ctx(&revs, req);
    assert_eq!(code_step(run(&good, &c)), cs("ok", "-"));

    // 1: non-canonical encoding of a valid token.
    let text = String::from_utf8(
        delegateos_reference::encoding::b64u_decode(&encode(&good).token).unwrap(),
    )
    .unwrap();
    let spaced = SerializedDct {
        token: b64u_encode(text.replacen(':', ": ", 1).as_bytes()),
        format: "delegateos-sjt-v1".into(),
    };
    assert_eq!(code_step(verify(&spaced, &c)), cs("malformed_token", "1"));
    let mut bad_now = c.clone();
    bad_now.now = "2026-01-01T00:30:60Z".into();
    assert_eq!(code_step(run(&good, &bad_now)), cs("malformed_token", "1"));

    // 3a: wrong root; signer field lies; 3b: tampered attenuation.
    let mut other_root = c.clone();
    other_root.root_public_key = kp(9).principal_id();
    assert_eq!(
        code_step(run(&good, &other_root)),
        cs("invalid_signature", "3a")
    );
    let mut minted = good.clone();
    minted.signatures[0] = sign_authority(&kp(9), &minted.authority);
    minted.signatures[0].signer = kp(1).principal_id();
    assert_eq!(code_step(run(&minted, &c)), cs("invalid_signature", "3a"));
    let mut by_signer = good.clone();
    by_signer.signatures[0] = sign_authority(&kp(9), &by_signer.authority);
    assert_eq!(
        code_step(run(&by_signer, &c)),
        cs("invalid_signature", "3a")
    );
    let mut tampered = good.clone();
    tampered.attenuations[1].max_budget_microcents = Some(60_000_000);
    assert_eq!(code_step(run(&tampered, &c)), cs("invalid_signature", "3b"));
    let mut surplus = good.clone();
    surplus.signatures.push(surplus.signatures[2].clone());
    assert_eq!(code_step(run(&surplus, &c)), cs("invalid_signature", "3b"));
    let mut missing = good.clone();
    missing.signatures.pop();
    assert_eq!(code_step(run(&missing, &c)), cs("invalid_signature", "3b"));

    // 4a–4e, each correctly signed.
    let mut mismatch = good.clone();
    mismatch.attenuations[1].attenuator = kp(5).principal_id();
    let mismatch = resign(mismatch, &[1, 2, 5]);
    assert_eq!(
        code_step(run(&mismatch, &c)),
        cs("attenuation_violation", "4a")
    );
    let mut budget = good.clone();
    budget.attenuations[1].max_budget_microcents = Some(200_000_001);
    assert_eq!(
        code_step(run(&resign(budget, &[1, 2, 3]), &c)),
        cs("attenuation_violation", "4c")
    );
    let mut later = good.clone();
    later.attenuations[1].expires_at = Some("2026-01-01T01:00:00.000000001Z".into());
    assert_eq!(
        code_step(run(&resign(later, &[1, 2, 3]), &c)),
        cs("attenuation_violation", "4d")
    );
    let mut same_instant = good.clone();
    same_instant.attenuations[1].expires_at = Some("2026-01-01T02:00:00+01:00".into());
    assert_eq!(
        code_step(run(&resign(same_instant, &[1, 2, 3]), &c)),
        cs("ok", "-")
    );
    let mut deeper = good.clone();
    deeper.attenuations[1].max_chain_depth = Some(1);
    assert_eq!(
        code_step(run(&resign(deeper, &[1, 2, 3]), &c)),
        cs("attenuation_violation", "4e")
    );
    // A fourth level under remaining 0: chain_depth_exceeded, and attenuate refuses it too.
    let mut p = specialist_params();
    p.delegatee = kp(6).principal_id();
    p.max_chain_depth = None;
    let err = attenuate(&good, &kp(4), p.clone()).unwrap_err();
    assert_eq!((err.code(), err.stage()), ("chain_depth_exceeded", "3.4/4"));
    let mut too_deep = good.clone();
    let mut block = good.attenuations[1].clone();
    block.attenuator = kp(4).principal_id();
    block.delegatee = kp(6).principal_id();
    block.max_chain_depth = None;
    too_deep.attenuations.push(block);
    let too_deep = resign(too_deep, &[1, 2, 3, 4]);
    assert_eq!(
        code_step(run(&too_deep, &c)),
        cs("chain_depth_exceeded", "4e")
    );
    // Without any maxChainDepth restated, depth still counts (D4): root max 1, two levels.
    let mut p1 = orchestrator_params();
    p1.max_chain_depth = None;
    let one = attenuate(&root_token(1), &kp(2), p1).unwrap();
    let mut p2 = specialist_params();
    p2.max_chain_depth = None;
    assert_eq!(
        attenuate(&one, &kp(3), p2).unwrap_err().code(),
        "chain_depth_exceeded"
    );

    // 5: boundary is not expired; one nanosecond later is.
    let mut at = c.clone();
    at.now = "2026-01-01T00:45:00Z".into();
    assert_eq!(code_step(run(&good, &at)), cs("ok", "-"));
    at.now = "2026-01-01T00:45:00.000000001Z".into();
    assert_eq!(code_step(run(&good, &at)), cs("expired", "5"));
    at.now = "2026-01-01T01:44:59+01:00".into();
    assert_eq!(code_step(run(&good, &at)), cs("ok", "-"));

    // 6: spent == budget is exhausted.
    let mut spent = c.clone();
    spent.spent_microcents = 50_000_000;
    assert_eq!(code_step(run(&good, &spent)), cs("budget_exceeded", "6"));
    spent.spent_microcents = 49_999_999;
    assert_eq!(run(&good, &spent).unwrap().remaining_budget_microcents, 1);
}

#[test]
fn revocation_requires_the_block_signer() {
    let t = three_level();
    let ids = revocation_ids(&t);
    let mut revs = RevocationList::new();
    // A stranger's entry for the authority block does not revoke (D6).
    revs.add(create_entry(&kp(9), &ids[0], NOW, Scope::Chain))
        .unwrap();
    let c = ctx(&revs, "web:search:arxiv.org/abs");
    assert!(run(&t, &c).is_ok());
    // The orchestrator revokes its own block (attenuation 0).
    revs.add(create_entry(&kp(2), &ids[1], NOW, Scope::Block))
        .unwrap();
    let c = ctx(&revs, "web:search:arxiv.org/abs");
    let d = run(&t, &c).unwrap_err();
    assert_eq!((d.code(), d.step()), ("revoked", "2"));
    assert_eq!(d.to_json()["revocationId"], ids[1].as_str());
    // Precedence: revoked and forged reports revoked.
    let mut forged = t.clone();
    forged.signatures[2].signature = forged.signatures[1].signature.clone();
    assert_eq!(code_step(run(&forged, &c)), cs("revoked", "2"));
}

#[test]
fn attenuate_refuses_a_non_delegatee() {
    let err = attenuate(&root_token(3), &kp(3), orchestrator_params()).unwrap_err();
    assert_eq!(
        (err.code(), err.stage()),
        ("attenuation_violation", "3.4/2")
    );
    let mut p = orchestrator_params();
    p.delegation_id = "del_XYZ".into();
    assert_eq!(
        attenuate(&root_token(3), &kp(2), p).unwrap_err().code(),
        "malformed_token"
    );
}

#[test]
fn verification_is_linear_in_chain_length() {
    // 150 attenuations, each by the previous delegatee; root allows them all.
    let mut params = CreateParams {
        delegatee: kp(2).principal_id(),
        capabilities: vec![cap("web:search:*")],
        contract_id: "ct_a1b2c3d4e5f6".into(),
        delegation_id: "del_000000000001".into(),
        parent_delegation_id: "del_000000000000".into(),
        chain_depth: 0,
        max_chain_depth: 1000,
        max_budget_microcents: 1000,
        expires_at: EXP.into(),
        issued_at: NOW.into(),
    };
    params.max_chain_depth = 1000;
    let mut t = create(&kp(1), params).unwrap();
    for i in 0..150u32 {
        let p = AttenuateParams {
            delegatee: kp(2 + ((i + 1) % 2) as u8).principal_id(),
            delegation_id: format!("del_{:012x}", i + 2),
            contract_id: "ct_a1b2c3d4e5f6".into(),
            ..AttenuateParams::default()
        };
        t = attenuate(&t, &kp(2 + (i % 2) as u8), p).unwrap();
    }
    let revs = RevocationList::new();
    let start = std::time::Instant::now();
    let scope = run(&t, &ctx(&revs, "web:search:x")).unwrap();
    assert_eq!(scope.chain_depth, 150);
    // §10.1 step 8: effectiveMaxDepth (no attenuation sets one); D4's countdown apart.
    assert_eq!(scope.max_chain_depth, 1000);
    assert_eq!(scope.remaining_chain_depth, 850);
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}

fn arb_cap() -> impl Strategy<Value = Capability> {
    let res = prop::collection::vec(prop::sample::select(vec!["", "*", "**", "a", "b"]), 1..4)
        .prop_map(|v| v.join("/"));
    (
        prop::sample::select(vec!["web", "docs"]),
        prop::sample::select(vec!["read", "*"]),
        res,
    )
        .prop_map(|(n, a, r)| Capability::new(n, a, &r))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn attenuation_never_widens(
        root_caps in prop::collection::vec(arb_cap(), 1..3),
        steps in prop::collection::vec((prop::option::of(prop::collection::vec(arb_cap(), 0..3)),
            prop::option::of(0u64..2000), prop::option::of(0u64..4)), 1..4),
    ) {
        let mut t = create(&kp(1), CreateParams {
            delegatee: kp(2).principal_id(),
            capabilities: root_caps,
            contract_id: "ct_a1b2c3d4e5f6".into(),
            delegation_id: "del_000000000001".into(),
            parent_delegation_id: "del_000000000000".into(),
            chain_depth: 0,
            max_chain_depth: 3,
            max_budget_microcents: 1000,
            expires_at: EXP.into(),
            issued_at: NOW.into(),
        }).unwrap();
        let revs = RevocationList::new();
        for (i, (caps, budget, depth)) in steps.into_iter().enumerate() {
            let before = evaluate(&encode(&t), NOW, 0, &kp(1).principal_id(), &revs);
            let holder = 2 + i as u8;
            let p = AttenuateParams {
                delegatee: kp(holder + 1).principal_id(),
                delegation_id: format!("del_{:012x}", i + 2),
                contract_id: "ct_a1b2c3d4e5f6".into(),
                allowed_capabilities: caps,
                max_budget_microcents: budget,
                expires_at: None,
                max_chain_depth: depth,
            };
            let Ok(next) = attenuate(&t, &kp(holder), p) else { break };
            // Anything attenuate accepts verifies (up to budget), and never widens.
            let after = evaluate(&encode(&next), NOW, 0, &kp(1).principal_id(), &revs);
            match (before, after) {
                (Ok(b), Ok(a)) => {
                    for c in &a.capabilities {
                        prop_assert!(b.capabilities.iter().any(|p| capability_subset(c, p)));
                    }
                    prop_assert!(a.remaining_budget_microcents <= b.remaining_budget_microcents);
                    // The countdown of further attenuations strictly shrinks (D4); the reported
                    // `maxChainDepth` is §10.1's effectiveMaxDepth, which may stay equal.
                    prop_assert!(a.remaining_chain_depth < b.remaining_chain_depth);
                    prop_assert!(a.max_chain_depth <= b.max_chain_depth);
                }
                (_, Err(d)) => prop_assert_eq!(d.code(), "budget_exceeded"),
                (Err(_), Ok(_)) => prop_assert!(false, "child verifies but parent does not"),
            }
            t = next;
        }
    }

    #[test]
    fn revocation_ids_ignore_key_order(perm in Just(()).prop_perturb(|_, mut rng| {
        let mut keys = vec!["issuer", "delegatee", "chainDepth", "expiresAt", "capabilities"];
        for i in (1..keys.len()).rev() {
            let j = (rng.next_u32() as usize) % (i + 1);
            keys.swap(i, j);
        }
        keys
    })) {
        let value = |k: &str| match k {
            "chainDepth" => "0".to_string(),
            "capabilities" => r#"[{"resource":"*","namespace":"web","action":"read"}]"#.to_string(),
            other => format!("\"{other}-value\""),
        };
        let text = format!("{{{}}}", perm.iter().map(|k| format!("\"{k}\":{}", value(k))).collect::<Vec<_>>().join(","));
        let sorted = r#"{"capabilities":[{"action":"read","namespace":"web","resource":"*"}],"chainDepth":0,"delegatee":"delegatee-value","expiresAt":"expiresAt-value","issuer":"issuer-value"}"#;
        prop_assert_eq!(
            revocation_id_of(&parse_strict(text.as_bytes()).unwrap()),
            revocation_id_of(&parse_strict(sorted.as_bytes()).unwrap())
        );
    }

    #[test]
    fn canonicalize_is_idempotent(v in arb_json()) {
        let once = canonicalize(&v).unwrap();
        let twice = canonicalize(&parse_strict(once.as_bytes()).unwrap()).unwrap();
        prop_assert_eq!(once, twice);
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// One scenario per weakening the reference once carried as a fault switch (now mirrored by
/// the curated mutants of `.ci/teeth-mutants.txt`). Each check is true for the weakened outcome
/// (usually "accepted"), so the specified behaviour gives false for every one.
#[test]
fn former_fault_scenarios_get_the_specified_verdict() {
    use delegateos_reference::crypto::verify_strict;
    use delegateos_reference::glob::{capability_matches, covers, matches};

    let good = three_level();
    let ids = revocation_ids(&good);
    let empty = RevocationList::new();
    let req = "web:search:arxiv.org/abs";
    let accepts = |t: &SignedJsonToken, c: &VerificationContext<'_>| verify(&encode(t), c).is_ok();
    let with = |edit: &dyn Fn(&mut SignedJsonToken), keys: &[u8]| {
        let mut t = good.clone();
        edit(&mut t);
        resign(t, keys)
    };
    let mut revoked_att = RevocationList::new();
    revoked_att
        .add(create_entry(&kp(2), &ids[1], NOW, Scope::Block))
        .unwrap();
    let mut revoked_root = RevocationList::new();
    revoked_root
        .add(create_entry(&kp(1), &ids[0], NOW, Scope::Chain))
        .unwrap();
    let mut stranger = RevocationList::new();
    stranger
        .add(create_entry(&kp(9), &ids[2], NOW, Scope::Block))
        .unwrap();

    let mut by_signer = good.clone();
    by_signer.signatures[0] = sign_authority(&kp(9), &by_signer.authority);
    let mut tampered = good.clone();
    tampered.attenuations[1].max_budget_microcents = Some(1);
    let mut surplus = good.clone();
    surplus.signatures.push(surplus.signatures[2].clone());
    let mismatch = with(
        &|t| t.attenuations[1].attenuator = kp(5).principal_id(),
        &[1, 2, 5],
    );
    let widened = with(
        &|t| t.attenuations[1].allowed_capabilities = Some(vec![cap("docs:read:/project/a")]),
        &[1, 2, 3],
    );
    let budget = with(
        &|t| t.attenuations[1].max_budget_microcents = Some(300_000_000),
        &[1, 2, 3],
    );
    let later = with(
        &|t| t.attenuations[1].expires_at = Some("2026-01-01T02:00:00Z".into()),
        &[1, 2, 3],
    );
    let deeper = with(&|t| t.attenuations[1].max_chain_depth = Some(5), &[1, 2, 3]);
    let too_deep = with(
        &|t| {
            let mut b = t.attenuations[1].clone();
            b.attenuator = kp(4).principal_id();
            b.delegatee = kp(6).principal_id();
            b.max_chain_depth = None;
            t.attenuations.push(b);
        },
        &[1, 2, 3, 4],
    );
    let raw = String::from_utf8(
        delegateos_reference::encoding::b64u_decode(&encode(&good).token).unwrap(),
    )
    .unwrap();
    let wire = |text: String| SerializedDct {
        token: b64u_encode(text.as_bytes()),
        format: "delegateos-sjt-v1".into(),
    };
    let spaced = wire(raw.replacen(':', ": ", 1));
    let extra = wire(raw.replacen("{\"attenuations\"", "{\"a\":1,\"attenuations\"", 1));

    let c = |revs| ctx(revs, req);
    let c_now = |now: &str| {
        let mut x = ctx(&empty, req);
        x.now = now.into();
        x
    };
    let c_spent = |spent| {
        let mut x = ctx(&empty, req);
        x.spent_microcents = spent;
        x
    };
    let mut other_root = ctx(&empty, req);
    other_root.root_public_key = kp(9).principal_id();

    let scenarios: Vec<(&str, bool)> = vec![
        ("skip-root-key-check", accepts(&good, &other_root)),
        ("verify-with-signer-field", accepts(&by_signer, &c(&empty))),
        (
            "skip-attenuation-signatures",
            accepts(&tampered, &c(&empty)),
        ),
        ("skip-signature-structure", accepts(&surplus, &c(&empty))),
        (
            "ignore-attenuation-revocations",
            accepts(&good, &c(&revoked_att)),
        ),
        (
            "last-block-revocation-only",
            accepts(&good, &c(&revoked_root)),
        ),
        // This fault over-denies: a stranger's entry kills the token.
        ("revocation-ignores-revoker", !accepts(&good, &c(&stranger))),
        (
            "expiry-string-compare",
            accepts(&good, &c_now("2026-01-01T00:45:00.5Z")),
        ),
        (
            "skip-expiry",
            accepts(&good, &c_now("2027-01-01T00:00:00Z")),
        ),
        // Over-denies at the boundary (`now == expiresAt` is not expired, D5).
        (
            "expiry-inclusive",
            !accepts(&good, &c_now("2026-01-01T00:45:00Z")),
        ),
        ("budget-inclusive", accepts(&good, &c_spent(50_000_000))),
        ("skip-budget-check", accepts(&good, &c_spent(60_000_000))),
        ("skip-attenuator-check", accepts(&mismatch, &c(&empty))),
        (
            "skip-capability-narrowing",
            accepts(&widened, &ctx(&empty, "docs:read:/project/a")),
        ),
        ("skip-budget-narrowing", accepts(&budget, &c(&empty))),
        ("skip-expiry-narrowing", accepts(&later, &c(&empty))),
        ("skip-depth-narrowing", accepts(&deeper, &c(&empty))),
        ("skip-depth-check", accepts(&too_deep, &c(&empty))),
        (
            "glob-prefix-no-boundary",
            matches("/project/**", "/projectX/a"),
        ),
        ("glob-star-crosses-segments", matches("/a/*", "/a/b/c")),
        ("subset-string-prefix", covers("/a/*", "/a/**")),
        (
            "action-wildcard",
            capability_matches(&cap("web:*:*"), "web", "search", "x"),
        ),
        (
            "accept-non-canonical-token",
            verify(&spaced, &c(&empty)).is_ok(),
        ),
        ("accept-unknown-fields", verify(&extra, &c(&empty)).is_ok()),
        ("lenient-signature", {
            // RFC 8032 permits this small-order key/R signature (speccheck 0); the strict
            // profile rejects it.
            let h = |s: &str| hex::decode(s).unwrap();
            let a: [u8; 32] = h("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa")
                .try_into()
                .unwrap();
            let mut sig = [0u8; 64];
            sig[..32].copy_from_slice(&h(
                "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
            ));
            let msg = h("8c93255d71dcab10e8f379c26200f3c7bd5f09d9bc3068d3ef4edeb4853022b6");
            verify_strict(&a, &msg, &sig).is_ok()
        }),
    ];
    assert_eq!(scenarios.len(), 25);
    for (name, weakened) in scenarios {
        assert!(
            !weakened,
            "{name}: the specified verdict must not be the weakened one"
        );
    }
}
