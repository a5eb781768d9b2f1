//! Group `contract/bind-spec`: binding exactly as §5.2 states it (`contract.check_binding`,
//! decision D43). The token is decoded, not verified — no root key, clock or revocations are
//! inputs; `contract.bind` (group `binding`) is the stricter combined check. A token is bound
//! when its last `contractId` is the contract's `id` (D11) and its effective capabilities have
//! an entry of each required `namespace:action`, any resource (D11).
//!
//! Attenuated tokens here keep the authority's `contractId` unless the case is about which
//! `contractId` counts, so that both readings of D11 agree on every other case.

use serde_json::{json, Value};

use delegateos_reference::encoding::decode_principal;

use super::contract::{set, sign_with, unsigned_contract};
use super::dct_support::{cap, ct, encode_value, Chain, CONTRACT};
use super::Ids;
use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};
use crate::keys::Keys;

const OP: &str = "contract.check_binding";

fn contract_for(keys: &Keys, id: &str, required: &[&str]) -> Value {
    let c = set(&unsigned_contract(&keys.root), "id", json!(id));
    let c = set(&c, "constraints/requiredCapabilities", json!(required));
    sign_with(&c, &keys.root)
}

fn input(contract: &Value, token: Value) -> Value {
    json!({ "contract": contract, "token": token })
}

fn bound() -> Expected {
    Expected::valid(json!({ "bound": true }))
}

fn mismatch() -> Expected {
    Expected::invalid("contract_mismatch", "5.2/contract")
}

/// The expectation of one outcome.
fn one(e: Expected) -> Expectation {
    match e {
        Expected::Valid { output } => Expectation::valid(output),
        Expected::Invalid { code, stage } => Expectation::Invalid { code, stage },
    }
}

/// The input for root's contract `id` requiring `required`, and `chain`'s token.
fn bind(k: &Keys, id: &str, required: &[&str], chain: &Chain) -> Value {
    input(&contract_for(k, id, required), chain.serialized())
}

/// `c` attenuated to `to`, repeating the authority's contractId.
fn same_ct(c: Chain, to: &crate::keys::Key) -> Chain {
    c.delegate(to, |a| a.contract_id = CONTRACT.to_owned())
}

/// One attenuation to bob narrowed to `docs:read` on `/project/a/**`.
fn narrowed(k: &Keys) -> Chain {
    same_ct(Chain::root(k), &k.bob).with_attenuation(0, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/a/**")]);
    })
}

/// A contract whose issuer is root's public key in hex, signed by root.
fn hex_issuer(k: &Keys) -> Value {
    sign_with(
        &set(
            &set(
                &unsigned_contract(&k.root),
                "issuer",
                json!(hex::encode(
                    decode_principal(&k.root.principal).unwrap_or_default()
                )),
            ),
            "constraints/requiredCapabilities",
            json!(["docs:read"]),
        ),
        &k.root,
    )
}

/// check_binding: bound, contract_mismatch, capability_mismatch, either under D11 (`true`:
/// bound first), or another refusal (code, stage).
#[derive(Clone, Copy)]
enum Spec {
    Bound,
    Mismatch,
    Capm,
    EitherD11(bool),
    Refused(&'static str, &'static str),
}

const IDS: &[&str] = &["BIND-CONTRACT-ID", "BIND-SPEC-DECODED"];
const CAPS: &[&str] = &["BIND-REQUIRED-CAPS", "BIND-SPEC-DECODED"];
const LAST: &[&str] = &["BIND-LAST-CONTRACT", "BIND-SPEC-DECODED"];
const DECODED: &[&str] = &["BIND-SPEC-DECODED"];

/// Number, description, requirements, flags, input, outcome.
type SpecRow = (u16, &'static str, Ids, Ids, fn(&Keys) -> Value, Spec);

#[rustfmt::skip]
const SPECS: &[SpecRow] = &[
    (1, "No attenuation, contract id = authority contractId, `docs:read` granted: bound.", IDS, &[],
        |k| bind(k, CONTRACT, &["docs:read"], &Chain::root(k)), Spec::Bound),
    (2, "No attenuation, the contract's id differs from the token's contractId: contract_mismatch.", IDS, &[],
        |k| bind(k, &ct(0xabc), &["docs:read"], &Chain::root(k)), Spec::Mismatch),
    (3, "`docs:read` and `web:search` required, both granted by the root capabilities: bound.", CAPS, &[],
        |k| bind(k, CONTRACT, &["docs:read", "web:search"], &Chain::root(k)), Spec::Bound),
    (4, "`docs:delete` required, not granted: capability_mismatch.", CAPS, &[], |k| bind(k, CONTRACT, &["docs:delete"], &Chain::root(k)), Spec::Capm),
    (5, "One of two required capabilities missing (`docs:read`, `mail:send`): capability_mismatch.", CAPS, &[],
        |k| bind(k, CONTRACT, &["docs:read", "mail:send"], &Chain::root(k)), Spec::Capm),
    (6, "`docs:rea` required: actions compare exactly, `docs:read` does not cover it.", CAPS, &[],
        |k| bind(k, CONTRACT, &["docs:rea"], &Chain::root(k)), Spec::Capm),
    (7, "No required capabilities: a token with the right contract id is bound.", &["BIND-EMPTY-REQUIRED", "BIND-SPEC-DECODED"], &[],
        |k| bind(k, CONTRACT, &[], &Chain::root(k)), Spec::Bound),
    (8, "The resource is irrelevant: `docs:read` on `/elsewhere/*` covers required `docs:read`.", CAPS, &[],
        |k| bind(k, CONTRACT, &["docs:read"], &Chain::root(k).caps(vec![cap("docs", "read", "/elsewhere/*")])), Spec::Bound),
    // Effective capabilities: the last allowedCapabilities.
    (10, "One attenuation narrowed to `docs:read`: required `docs:read` is bound.", CAPS, &[],
        |k| bind(k, CONTRACT, &["docs:read"], &narrowed(k)), Spec::Bound),
    (11, "One attenuation narrowed to `docs:read`: required `docs:write` (granted only by the authority) is capability_mismatch — the effective capabilities count.", CAPS, &[],
        |k| bind(k, CONTRACT, &["docs:write"], &narrowed(k)), Spec::Capm),
    (12, "Two attenuations without allowedCapabilities: the authority's capabilities are effective, `web:search` is bound.", CAPS, &[],
        |k| bind(k, CONTRACT, &["web:search"], &same_ct(same_ct(Chain::root(k), &k.bob), &k.carol)), Spec::Bound),
    // Which contractId counts (D11): the last; the authority's is acceptable.
    (20, "One attenuation with its own contractId ct_000000000100: binding to it succeeds (last contractId, D11).", LAST, &["BindingContractId"],
        |k| bind(k, &ct(0x100), &["docs:read"], &Chain::root(k).delegate(&k.bob, |_| {})), Spec::EitherD11(true)),
    (21, "One attenuation with its own contractId: binding to the authority's contractId is contract_mismatch (last contractId, D11).", LAST, &["BindingContractId"],
        |k| bind(k, CONTRACT, &["docs:read"], &Chain::root(k).delegate(&k.bob, |_| {})), Spec::EitherD11(false)),
    // Binding does not verify: a token re-addressed to another root still binds.
    (30, "A token issued by other_root (it would not verify under root): binding as §5.2 states it only compares ids and capabilities — bound.", DECODED, &[],
        |k| bind(k, CONTRACT, &["docs:read"], &Chain::root(k).with_authority(|a| a.issuer = k.other_root.principal.clone())), Spec::Bound),
    // Malformed inputs.
    (40, "The token is not base64url of a token: malformed_token.", DECODED, &[],
        |k| input(&contract_for(k, CONTRACT, &["docs:read"]), encode_value(&json!({}))), Spec::Refused("malformed_token", "10.1/1")),
    (41, "The contract's id is not ct_ + 12 hex: malformed_contract (before the token is looked at).", DECODED, &[],
        |k| input(&set(&contract_for(k, CONTRACT, &["docs:read"]), "id", json!("ct_bad")), encode_value(&json!({}))), Spec::Refused("malformed_contract", "5.1")),
    // The contract's issuer is never used by binding: only the shape rule can refuse it.
    (42, "The contract's issuer is root's public key in hex (64 characters), not a principal id; signed by root, token bound otherwise: malformed_contract.",
        &["CONTRACT-SHAPE", "PRIM-ID-PRINCIPAL", "BIND-SPEC-DECODED"], &[],
        |k| input(&hex_issuer(k), Chain::root(k).serialized()), Spec::Refused("malformed_contract", "5.1")),
];

/// Adds group `bind-spec` to area `contract`.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g: &mut Group = area.group(
        "bind-spec",
        "contract.check_binding: §5.2 binding on the decoded token only — last contractId = contract.id, effective capabilities cover requiredCapabilities (D11, D43); token verification is dct.verify's, the combined check contract.bind's.",
    );
    for &(n, desc, reqs, flags, inp, spec) in SPECS {
        let expect = match spec {
            Spec::Bound => one(bound()),
            Spec::Mismatch => one(mismatch()),
            Spec::Capm => Expectation::invalid("capability_mismatch", "5.2/capabilities"),
            Spec::EitherD11(true) => Expectation::acceptable("D11", vec![bound(), mismatch()]),
            Spec::EitherD11(false) => Expectation::acceptable("D11", vec![mismatch(), bound()]),
            Spec::Refused(code, stage) => one(Expected::invalid(code, stage)),
        };
        g.case(n, desc, reqs, flags, OP, inp(&k), expect);
    }
}
