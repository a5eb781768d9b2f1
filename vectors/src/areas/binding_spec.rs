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

fn capm() -> Expectation {
    Expectation::invalid("capability_mismatch", "5.2/capabilities")
}

fn one(e: Expected) -> Expectation {
    match e {
        Expected::Valid { output } => Expectation::valid(output),
        Expected::Invalid { code, stage } => Expectation::Invalid { code, stage },
    }
}

/// Adds group `bind-spec` to area `contract`.
#[allow(clippy::too_many_lines)] // One case list.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g: &mut Group = area.group(
        "bind-spec",
        "contract.check_binding: §5.2 binding on the decoded token only — last contractId = contract.id, effective capabilities cover requiredCapabilities (D11, D43); token verification is dct.verify's, the combined check contract.bind's.",
    );
    let root = Chain::root(&k);
    let same_ct =
        |c: Chain, to: &crate::keys::Key| c.delegate(to, |a| a.contract_id = CONTRACT.to_owned());
    let ids = &["BIND-CONTRACT-ID", "BIND-SPEC-DECODED"];
    let caps = &["BIND-REQUIRED-CAPS", "BIND-SPEC-DECODED"];

    g.case(
        1,
        "No attenuation, contract id = authority contractId, `docs:read` granted: bound.",
        ids,
        &[],
        OP,
        input(
            &contract_for(&k, CONTRACT, &["docs:read"]),
            root.serialized(),
        ),
        one(bound()),
    );
    g.case(
        2,
        "No attenuation, the contract's id differs from the token's contractId: contract_mismatch.",
        ids,
        &[],
        OP,
        input(
            &contract_for(&k, &ct(0xabc), &["docs:read"]),
            root.serialized(),
        ),
        one(mismatch()),
    );
    g.case(
        3,
        "`docs:read` and `web:search` required, both granted by the root capabilities: bound.",
        caps,
        &[],
        OP,
        input(
            &contract_for(&k, CONTRACT, &["docs:read", "web:search"]),
            root.serialized(),
        ),
        one(bound()),
    );
    g.case(
        4,
        "`docs:delete` required, not granted: capability_mismatch.",
        caps,
        &[],
        OP,
        input(
            &contract_for(&k, CONTRACT, &["docs:delete"]),
            root.serialized(),
        ),
        capm(),
    );
    g.case(
        5,
        "One of two required capabilities missing (`docs:read`, `mail:send`): capability_mismatch.",
        caps,
        &[],
        OP,
        input(
            &contract_for(&k, CONTRACT, &["docs:read", "mail:send"]),
            root.serialized(),
        ),
        capm(),
    );
    g.case(
        6,
        "`docs:rea` required: actions compare exactly, `docs:read` does not cover it.",
        caps,
        &[],
        OP,
        input(
            &contract_for(&k, CONTRACT, &["docs:rea"]),
            root.serialized(),
        ),
        capm(),
    );
    g.case(
        7,
        "No required capabilities: a token with the right contract id is bound.",
        &["BIND-EMPTY-REQUIRED", "BIND-SPEC-DECODED"],
        &[],
        OP,
        input(&contract_for(&k, CONTRACT, &[]), root.serialized()),
        one(bound()),
    );
    let other_res = Chain::root(&k).caps(vec![cap("docs", "read", "/elsewhere/*")]);
    g.case(
        8,
        "The resource is irrelevant: `docs:read` on `/elsewhere/*` covers required `docs:read`.",
        caps,
        &[],
        OP,
        input(
            &contract_for(&k, CONTRACT, &["docs:read"]),
            other_res.serialized(),
        ),
        one(bound()),
    );

    // Effective capabilities: the last allowedCapabilities.
    let narrowed = same_ct(Chain::root(&k), &k.bob);
    let narrowed = narrowed.with_attenuation(0, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/a/**")]);
    });
    g.case(
        10,
        "One attenuation narrowed to `docs:read`: required `docs:read` is bound.",
        caps,
        &[],
        OP,
        input(
            &contract_for(&k, CONTRACT, &["docs:read"]),
            narrowed.serialized(),
        ),
        one(bound()),
    );
    g.case(11, "One attenuation narrowed to `docs:read`: required `docs:write` (granted only by the authority) is capability_mismatch — the effective capabilities count.", caps, &[], OP,
        input(&contract_for(&k, CONTRACT, &["docs:write"]), narrowed.serialized()), capm());
    let unrestricted = same_ct(same_ct(Chain::root(&k), &k.bob), &k.carol);
    g.case(12, "Two attenuations without allowedCapabilities: the authority's capabilities are effective, `web:search` is bound.", caps, &[], OP,
        input(&contract_for(&k, CONTRACT, &["web:search"]), unrestricted.serialized()), one(bound()));

    // Which contractId counts (D11): the last; the authority's is acceptable.
    let own_ct = Chain::root(&k).delegate(&k.bob, |_| {});
    let last = &["BIND-LAST-CONTRACT", "BIND-SPEC-DECODED"];
    g.case(20, "One attenuation with its own contractId ct_000000000100: binding to it succeeds (last contractId, D11).", last, &["BindingContractId"], OP,
        input(&contract_for(&k, &ct(0x100), &["docs:read"]), own_ct.serialized()),
        Expectation::acceptable("D11", vec![bound(), mismatch()]));
    g.case(21, "One attenuation with its own contractId: binding to the authority's contractId is contract_mismatch (last contractId, D11).", last, &["BindingContractId"], OP,
        input(&contract_for(&k, CONTRACT, &["docs:read"]), own_ct.serialized()),
        Expectation::acceptable("D11", vec![mismatch(), bound()]));

    // Binding does not verify: a token re-addressed to another root still binds.
    let foreign = Chain::root(&k).with_authority(|a| a.issuer = k.other_root.principal.clone());
    g.case(30, "A token issued by other_root (it would not verify under root): binding as §5.2 states it only compares ids and capabilities — bound.", &["BIND-SPEC-DECODED"], &[], OP,
        input(&contract_for(&k, CONTRACT, &["docs:read"]), foreign.serialized()), one(bound()));

    // Malformed inputs.
    g.case(
        40,
        "The token is not base64url of a token: malformed_token.",
        &["BIND-SPEC-DECODED"],
        &[],
        OP,
        input(
            &contract_for(&k, CONTRACT, &["docs:read"]),
            encode_value(&json!({})),
        ),
        one(Expected::invalid("malformed_token", "10.1/1")),
    );
    let bad_contract = set(
        &contract_for(&k, CONTRACT, &["docs:read"]),
        "id",
        json!("ct_bad"),
    );
    g.case(41, "The contract's id is not ct_ + 12 hex: malformed_contract (before the token is looked at).", &["BIND-SPEC-DECODED"], &[], OP,
        input(&bad_contract, encode_value(&json!({}))), one(Expected::invalid("malformed_contract", "5.1")));
    // The contract's issuer is never used by binding: only the shape rule can refuse it.
    let hex_issuer = sign_with(
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
    );
    g.case(42, "The contract's issuer is root's public key in hex (64 characters), not a principal id; signed by root, token bound otherwise: malformed_contract.", &["CONTRACT-SHAPE", "PRIM-ID-PRINCIPAL", "BIND-SPEC-DECODED"], &[], OP,
        input(&hex_issuer, root.serialized()), one(Expected::invalid("malformed_contract", "5.1")));
}
