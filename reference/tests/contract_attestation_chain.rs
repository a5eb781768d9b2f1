//! Contracts (§5, D11), attestations (§7, D13), delegation chains (§8.2), JSON-RPC (§9).

// Test helpers unwrap: a panic is the failure report here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_reference::attenuate::{attenuate, create, AttenuateParams, CreateParams};
use delegateos_reference::attestation::{
    create_attestation, output_hash, verify_attestation_value, Attestation, AttestationFields,
    AttestationResult, AttestationType,
};
use delegateos_reference::chain::{verify_chain, Delegation, DelegationStatus};
use delegateos_reference::checks::{default_registry, VerificationSpec};
use delegateos_reference::contract::{
    bind, create_contract, verify_contract_value, ContractFields, TaskConstraints, TaskContract,
    TaskSpec,
};
use delegateos_reference::crypto::Keypair;
use delegateos_reference::jsonrpc::classify;
use delegateos_reference::revocation::{create_entry, RevocationList, Scope};
use delegateos_reference::token::{encode, Capability, SerializedDct, SignedJsonToken};
use serde_json::{json, Value};

const NOW: &str = "2025-01-01T00:00:00Z";
const CT: &str = "ct_0123456789ab";

fn key(n: u8) -> Keypair {
    Keypair::from_seed(&[n; 32])
}

fn contract_with(verification: Value, required: &[&str]) -> TaskContract {
    let fields = ContractFields {
        id: CT.into(),
        created_at: "2024-12-31T00:00:00Z".into(),
        task: TaskSpec {
            title: "t".into(),
            description: "d".into(),
            inputs: serde_json::Map::new(),
            output_schema: json!({"type": "object", "required": ["answer"]}),
        },
        verification: serde_json::from_value::<VerificationSpec>(verification).unwrap(),
        constraints: TaskConstraints {
            max_budget_microcents: 1000,
            deadline: "2025-02-01T00:00:00Z".into(),
            max_chain_depth: 3,
            required_capabilities: required.iter().map(|s| s.to_string()).collect(),
        },
    };
    create_contract(&key(1), fields).unwrap()
}

fn contract() -> TaskContract {
    contract_with(
        json!({"method": "deterministic_check", "checkName": "field_exists", "checkParams": {"fields": ["answer"]}}),
        &["web:search", "fs:read"],
    )
}

fn root_token(contract_id: &str) -> SignedJsonToken {
    create(
        &key(1),
        CreateParams {
            delegatee: key(2).principal_id(),
            capabilities: vec![
                Capability::new("web", "search", "*"),
                Capability::new("fs", "read", "/data/**"),
            ],
            contract_id: contract_id.into(),
            delegation_id: "del_000000000001".into(),
            parent_delegation_id: "del_000000000000".into(),
            chain_depth: 0,
            max_chain_depth: 3,
            max_budget_microcents: 1000,
            expires_at: "2025-06-01T00:00:00Z".into(),
            issued_at: "2024-12-01T00:00:00Z".into(),
        },
    )
    .unwrap()
}

fn child_token(
    parent: &SignedJsonToken,
    from: u8,
    to: u8,
    del: &str,
    caps: Option<Vec<Capability>>,
) -> SignedJsonToken {
    attenuate(
        parent,
        &key(from),
        AttenuateParams {
            delegatee: key(to).principal_id(),
            delegation_id: del.into(),
            contract_id: CT.into(),
            allowed_capabilities: caps,
            max_budget_microcents: None,
            expires_at: None,
            max_chain_depth: None,
        },
    )
    .unwrap()
}

fn root_id() -> String {
    key(1).principal_id()
}

// ---- contracts ----

#[test]
fn contract_sign_verify_round_trip() {
    let c = contract();
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(verify_contract_value(&v).unwrap(), c);
    let mut tampered = v.clone();
    tampered["constraints"]["maxBudgetMicrocents"] = json!(1001);
    assert_eq!(
        verify_contract_value(&tampered).unwrap_err().code(),
        "invalid_signature"
    );
    let mut other_issuer = v.clone();
    other_issuer["issuer"] = json!(key(9).principal_id());
    assert_eq!(
        verify_contract_value(&other_issuer).unwrap_err().code(),
        "invalid_signature"
    );
    for (path, bad) in [
        ("id", json!("ct_ABC")),
        ("version", json!("0.2")),
        ("createdAt", json!("2024-02-30T00:00:00Z")),
        ("extra", json!(1)),
        ("signature", json!("x")),
    ] {
        let mut m = v.clone();
        m[path] = bad;
        assert_eq!(
            verify_contract_value(&m).unwrap_err().code(),
            "malformed_contract",
            "{path}"
        );
    }
    let mut bad_req = v.clone();
    bad_req["constraints"]["requiredCapabilities"] = json!(["nocolon"]);
    assert_eq!(
        verify_contract_value(&bad_req).unwrap_err().code(),
        "malformed_contract"
    );
}

#[test]
fn binding_per_d11() {
    let c = contract();
    let rl = RevocationList::new();
    let root = root_token(CT);
    let scope = bind(&c, &encode(&root), NOW, &root_id(), &rl).unwrap();
    assert_eq!(scope.contract_id, CT);
    // Last contractId counts: an attenuation bound to another contract.
    let other = attenuate(
        &root,
        &key(2),
        AttenuateParams {
            delegatee: key(3).principal_id(),
            delegation_id: "del_000000000002".into(),
            contract_id: "ct_ffffffffffff".into(),
            allowed_capabilities: None,
            max_budget_microcents: None,
            expires_at: None,
            max_chain_depth: None,
        },
    )
    .unwrap();
    assert_eq!(
        bind(&c, &encode(&other), NOW, &root_id(), &rl)
            .unwrap_err()
            .code(),
        "contract_mismatch"
    );
    // Narrowed to web:search only: fs:read is missing.
    let narrow = child_token(
        &root,
        2,
        3,
        "del_000000000002",
        Some(vec![Capability::new("web", "search", "x")]),
    );
    assert_eq!(
        bind(&c, &encode(&narrow), NOW, &root_id(), &rl)
            .unwrap_err()
            .code(),
        "capability_mismatch"
    );
    // Split at the first colon: "web:search:extra" needs action "search:extra".
    let c2 = contract_with(
        json!({"method": "schema_match", "schema": true}),
        &["web:search:extra"],
    );
    assert_eq!(
        bind(&c2, &encode(&root), NOW, &root_id(), &rl)
            .unwrap_err()
            .code(),
        "capability_mismatch"
    );
    // Verify denials pass through.
    assert_eq!(
        bind(&c, &encode(&root), "2026-01-01T00:00:00Z", &root_id(), &rl)
            .unwrap_err()
            .code(),
        "expired"
    );
    assert_eq!(
        bind(&c, &encode(&root), NOW, &key(9).principal_id(), &rl)
            .unwrap_err()
            .code(),
        "invalid_signature"
    );
}

// ---- attestations ----

fn result(output: Option<Value>, cost: u64) -> AttestationResult {
    AttestationResult {
        success: true,
        output_hash: output.as_ref().map(|o| output_hash(o).unwrap()),
        output,
        cost_microcents: cost,
        duration_ms: 5,
        verification_outcome: None,
    }
}

fn attest(r: AttestationResult, contract_id: &str) -> Value {
    let a = create_attestation(
        &key(3),
        AttestationFields {
            id: "att_00000000000a".into(),
            contract_id: contract_id.into(),
            delegation_id: "del_000000000002".into(),
            created_at: NOW.into(),
            kind: AttestationType::Completion,
            result: r,
            child_attestations: vec![],
        },
    )
    .unwrap();
    serde_json::to_value(a).unwrap()
}

#[test]
fn output_hash_is_b64u_blake2b_of_canonical_json() {
    assert_eq!(
        output_hash(&json!({"b": 1, "a": 2.0})).unwrap(),
        output_hash(&json!({"a": 2, "b": 1})).unwrap()
    );
    assert_eq!(output_hash(&json!(null)).unwrap().len(), 43);
}

#[test]
fn attestation_steps_in_order() {
    let reg = default_registry();
    let c = contract();
    let ok = attest(result(Some(json!({"answer": 42})), 1000), CT);
    let verdict = verify_attestation_value(&ok, &c, &reg).unwrap();
    assert!(verdict.verification.passed);
    // A typed attestation verifies through its serialization.
    let typed: Attestation = serde_json::from_value(ok.clone()).unwrap();
    verify_attestation_value(&serde_json::to_value(&typed).unwrap(), &c, &reg).unwrap();

    let mut forged = ok.clone();
    forged["result"]["costMicrocents"] = json!(1);
    assert_eq!(
        verify_attestation_value(&forged, &c, &reg)
            .unwrap_err()
            .code(),
        "invalid_signature"
    );
    let mut malformed = ok.clone();
    malformed["id"] = json!("att_1");
    assert_eq!(
        verify_attestation_value(&malformed, &c, &reg)
            .unwrap_err()
            .code(),
        "malformed_attestation"
    );
    let wrong = attest(result(Some(json!({"answer": 1})), 1), "ct_ffffffffffff");
    assert_eq!(
        verify_attestation_value(&wrong, &c, &reg)
            .unwrap_err()
            .code(),
        "contract_mismatch"
    );
    let mut r = result(Some(json!({"answer": 1})), 1);
    r.output_hash = Some(output_hash(&json!({"answer": 2})).unwrap());
    assert_eq!(
        verify_attestation_value(&attest(r, CT), &c, &reg)
            .unwrap_err()
            .code(),
        "output_hash_mismatch"
    );
    let failing = attest(result(Some(json!({"other": 1})), 1), CT);
    assert_eq!(
        verify_attestation_value(&failing, &c, &reg)
            .unwrap_err()
            .code(),
        "verification_failed"
    );
    let missing = attest(result(None, 1), CT);
    assert_eq!(
        verify_attestation_value(&missing, &c, &reg)
            .unwrap_err()
            .code(),
        "verification_failed"
    );
    let over = attest(result(Some(json!({"answer": 1})), 1001), CT);
    assert_eq!(
        verify_attestation_value(&over, &c, &reg)
            .unwrap_err()
            .code(),
        "budget_exceeded"
    );
    // Verification failure is reported before budget.
    let both = attest(result(Some(json!({})), 1001), CT);
    assert_eq!(
        verify_attestation_value(&both, &c, &reg)
            .unwrap_err()
            .code(),
        "verification_failed"
    );
    // null output is present and hashed.
    let null_out = attest(result(Some(Value::Null), 1), CT);
    assert_eq!(
        verify_attestation_value(&null_out, &c, &reg)
            .unwrap_err()
            .code(),
        "verification_failed"
    );
}

#[test]
fn attestation_schema_match_uses_output_schema_first() {
    let reg = default_registry();
    let c = contract_with(
        json!({"method": "schema_match", "schema": {"type": "object", "required": ["extra"]}}),
        &[],
    );
    let no_answer = attest(result(Some(json!({"extra": 1})), 1), CT);
    assert_eq!(
        verify_attestation_value(&no_answer, &c, &reg)
            .unwrap_err()
            .code(),
        "schema_mismatch"
    );
    let no_extra = attest(result(Some(json!({"answer": 1})), 1), CT);
    assert_eq!(
        verify_attestation_value(&no_extra, &c, &reg)
            .unwrap_err()
            .code(),
        "verification_failed"
    );
    let both = attest(result(Some(json!({"answer": 1, "extra": 2})), 1), CT);
    verify_attestation_value(&both, &c, &reg).unwrap();
}

// ---- chains ----

fn delegation(
    id: &str,
    parent: &str,
    from: u8,
    to: u8,
    depth: u64,
    dct: SerializedDct,
) -> Delegation {
    Delegation {
        id: id.into(),
        parent_id: parent.into(),
        from: key(from).principal_id(),
        to: key(to).principal_id(),
        contract_id: CT.into(),
        dct,
        depth,
        status: DelegationStatus::Active,
        created_at: NOW.into(),
        completed_at: None,
        attestation_id: None,
    }
}

fn chain3() -> Vec<Delegation> {
    let t0 = root_token(CT);
    let t1 = child_token(&t0, 2, 3, "del_000000000002", None);
    let t2 = child_token(&t1, 3, 4, "del_000000000003", None);
    vec![
        delegation("del_000000000001", "del_000000000000", 1, 2, 0, encode(&t0)),
        delegation("del_000000000002", "del_000000000001", 2, 3, 1, encode(&t1)),
        delegation("del_000000000003", "del_000000000002", 3, 4, 2, encode(&t2)),
    ]
}

fn chain_code(chain: &[Delegation]) -> &'static str {
    verify_chain(
        chain.iter().map(Ok),
        &root_id(),
        NOW,
        &RevocationList::new(),
    )
    .unwrap_err()
    .code()
}

#[test]
fn valid_chain_verifies() {
    verify_chain(
        chain3().iter().map(Ok),
        &root_id(),
        NOW,
        &RevocationList::new(),
    )
    .unwrap();
    let v = serde_json::to_value(&chain3()[1]).unwrap();
    assert_eq!(v["parentId"], "del_000000000001");
    assert_eq!(
        serde_json::from_value::<Delegation>(v).unwrap(),
        chain3()[1]
    );
}

#[test]
fn each_invariant_has_its_code() {
    let mut c = chain3();
    c[0].parent_id = "del_000000000009".into();
    assert_eq!(chain_code(&c), "root_invalid");
    let mut c = chain3();
    c[0].depth = 1;
    assert_eq!(chain_code(&c), "root_invalid");
    let mut c = chain3();
    c[2].parent_id = "del_000000000001".into();
    assert_eq!(chain_code(&c), "parent_mismatch");
    let mut c = chain3();
    c[2].from = key(2).principal_id();
    assert_eq!(chain_code(&c), "from_mismatch");
    let mut c = chain3();
    c[2].depth = 3;
    assert_eq!(chain_code(&c), "depth_mismatch");
    let mut c = chain3();
    c[1].id = "del_00000000000f".into();
    c[2].parent_id = "del_00000000000f".into();
    assert_eq!(chain_code(&c), "dct_mismatch");
    let mut c = chain3();
    c[2].dct = c[1].dct.clone();
    assert_eq!(chain_code(&c), "not_attenuated");
    let mut c = chain3();
    let unrelated = child_token(&root_token(CT), 2, 4, "del_000000000003", None);
    c[2].dct = encode(&unrelated);
    assert_eq!(chain_code(&c), "not_attenuated");
    let mut c = chain3();
    c[1].status = DelegationStatus::Completed;
    c[1].created_at = "yesterday".into();
    assert_eq!(chain_code(&c), "malformed_delegation");
    assert_eq!(chain_code(&[]), "malformed_delegation");
}

#[test]
fn depth_exceeded_and_revocation() {
    // Root allows depth 1 only.
    let mut t0 = root_token(CT);
    t0.authority.max_chain_depth = 1;
    let t0 = create(
        &key(1),
        CreateParams {
            delegatee: key(2).principal_id(),
            capabilities: t0.authority.capabilities.clone(),
            contract_id: CT.into(),
            delegation_id: "del_000000000001".into(),
            parent_delegation_id: "del_000000000000".into(),
            chain_depth: 0,
            max_chain_depth: 2,
            max_budget_microcents: 1000,
            expires_at: "2025-06-01T00:00:00Z".into(),
            issued_at: "2024-12-01T00:00:00Z".into(),
        },
    )
    .unwrap();
    let t1 = child_token(&t0, 2, 3, "del_000000000002", None);
    let t2 = child_token(&t1, 3, 4, "del_000000000003", None);
    let mut c = vec![
        delegation("del_000000000001", "del_000000000000", 1, 2, 0, encode(&t0)),
        delegation("del_000000000002", "del_000000000001", 2, 3, 1, encode(&t1)),
        delegation("del_000000000003", "del_000000000002", 3, 4, 2, encode(&t2)),
    ];
    verify_chain(c.iter().map(Ok), &root_id(), NOW, &RevocationList::new()).unwrap();
    // attenuate() refuses to go deeper (D4), so the hop is assembled by hand; invariant 4 is
    // checked before the DCT itself is verified.
    let mut t3 = t2.clone();
    t3.attenuations
        .push(delegateos_reference::token::Attenuation {
            attenuator: key(4).principal_id(),
            delegatee: key(5).principal_id(),
            delegation_id: "del_000000000004".into(),
            contract_id: CT.into(),
            allowed_capabilities: None,
            max_budget_microcents: None,
            expires_at: None,
            max_chain_depth: None,
        });
    let sig =
        delegateos_reference::attenuate::sign_attenuation(&key(4), &t3.authority, &t3.attenuations);
    t3.signatures.push(sig);
    c.push(delegation(
        "del_000000000004",
        "del_000000000003",
        4,
        5,
        3,
        encode(&t3),
    ));
    assert_eq!(chain_code(&c), "depth_exceeded");

    let c = chain3();
    let rid = delegateos_reference::token::revocation_ids(&root_token(CT))[0].clone();
    let mut rl = RevocationList::new();
    rl.add(create_entry(&key(1), &rid, NOW, Scope::Block))
        .unwrap();
    assert_eq!(
        verify_chain(c.iter().map(Ok), &root_id(), NOW, &rl)
            .unwrap_err()
            .code(),
        "revoked"
    );
}

// ---- JSON-RPC ----

#[test]
fn jsonrpc_messages() {
    let c = serde_json::to_value(contract()).unwrap();
    let dct = encode(&root_token(CT)).token;
    let req = json!({"jsonrpc": "2.0", "method": "delegateos/delegate", "id": 1, "params": {
        "contract": c, "dct": dct, "dctFormat": "delegateos-sjt-v1",
        "delegationId": "del_f7e8d9c0b1a2", "parentDelegationId": "del_000000000000"}});
    assert_eq!(classify(&req).unwrap().name(), "delegate");
    let accept = json!({"jsonrpc": "2.0", "id": "a", "result": {"accepted": true, "delegationId": "del_f7e8d9c0b1a2", "estimatedDurationMs": 30000, "estimatedCostMicrocents": 50000}});
    assert_eq!(classify(&accept).unwrap().name(), "accept");
    let reject = json!({"jsonrpc": "2.0", "id": 1, "result": {"accepted": false, "reason": "capability_mismatch", "details": "no"}});
    assert_eq!(classify(&reject).unwrap().name(), "reject");
    let att = attest(result(Some(json!({"answer": 1})), 1), CT);
    let complete = json!({"jsonrpc": "2.0", "method": "delegateos/complete", "params": {"delegationId": "del_000000000002", "attestation": att}});
    assert_eq!(classify(&complete).unwrap().name(), "complete");
    let rid = delegateos_reference::token::revocation_ids(&root_token(CT))[0].clone();
    let entry = serde_json::to_value(create_entry(&key(1), &rid, NOW, Scope::Chain)).unwrap();
    let revoke =
        json!({"jsonrpc": "2.0", "method": "delegateos/revoke", "params": {"revocation": entry}});
    assert_eq!(classify(&revoke).unwrap().name(), "revoke");

    let mutate = |base: &Value, f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        classify(&v).unwrap_err().code()
    };
    assert_eq!(
        mutate(&req, &|v| v["jsonrpc"] = json!("1.0")),
        "invalid_message"
    );
    assert_eq!(
        mutate(&req, &|v| {
            v.as_object_mut().unwrap().remove("id");
        }),
        "invalid_message"
    );
    assert_eq!(mutate(&req, &|v| v["id"] = json!(null)), "invalid_message");
    assert_eq!(mutate(&req, &|v| v["id"] = json!(1.5)), "invalid_message");
    assert_eq!(
        mutate(&req, &|v| v["params"]["dctFormat"] = json!("biscuit")),
        "invalid_message"
    );
    assert_eq!(
        mutate(&req, &|v| v["params"]["delegationId"] = json!("del_x")),
        "invalid_message"
    );
    assert_eq!(
        mutate(&req, &|v| v["params"]["contract"]["id"] = json!("nope")),
        "invalid_message"
    );
    assert_eq!(
        mutate(&req, &|v| v["params"]["extra"] = json!(1)),
        "invalid_message"
    );
    assert_eq!(
        mutate(&req, &|v| v["method"] = json!("delegateos/other")),
        "invalid_message"
    );
    assert_eq!(
        mutate(&complete, &|v| v["id"] = json!(1)),
        "invalid_message"
    );
    assert_eq!(
        mutate(&complete, &|v| v["params"]["delegationId"] =
            json!("del_000000000009")),
        "invalid_message"
    );
    assert_eq!(
        mutate(&revoke, &|v| v["params"]["revocation"]["scope"] =
            json!("tree")),
        "invalid_message"
    );
    assert_eq!(
        mutate(&accept, &|v| v["result"]["estimatedDurationMs"] = json!(-1)),
        "invalid_message"
    );
    assert_eq!(
        mutate(&reject, &|v| v["result"]["accepted"] = json!("no")),
        "invalid_message"
    );
    assert_eq!(
        mutate(&reject, &|v| v["error"] = json!({"code": 1})),
        "invalid_message"
    );
    assert_eq!(classify(&json!([1])).unwrap_err().code(), "invalid_message");
}
