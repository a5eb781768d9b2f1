//! Group `contract/bind-spec`: binding exactly as §5.2 states it (`contract.check_binding`,
//! decision D43). The token is decoded, not verified — no root key, clock or revocations are
//! inputs; `contract.bind` (group `binding`) is the stricter combined check. A token is bound
//! when its last `contractId` is the contract's `id` (D11) and its effective capabilities have
//! an entry of each required `namespace:action`, any resource (D11).
//!
//! Attenuated tokens here keep the authority's `contractId` unless the case is about which
//! `contractId` counts, so that both readings of D11 agree on every other case. The cases are
//! the rows of `data/tables/binding_spec.json`: a contract id, required capabilities and a
//! token by name ([`token`]), or a malformed input named in [`spec_case`].

// A row naming a token or construction this file does not define is a bug in the table: the
// generator panics with the row and the name (run in CI, it fails at once).
#![allow(clippy::panic)]

use serde::Deserialize;
use serde_json::{json, Value};

use delegateos_reference::encoding::decode_principal;

use super::contract::{set, sign_with, unsigned_contract};
use super::dct_support::{cap, encode_value, Chain, CONTRACT};
use crate::format::Expectation;
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

/// The tokens of the cases, by name.
fn token(k: &Keys, name: &str) -> Chain {
    let root = Chain::root(k);
    match name {
        "root" => root,
        "narrowed" => narrowed(k),
        "elsewhere" => root.caps(vec![cap("docs", "read", "/elsewhere/*")]),
        "two-same-contract" => same_ct(same_ct(root, &k.bob), &k.carol),
        "own-contract" => root.delegate(&k.bob, |_| {}),
        // Binding does not verify: a token re-addressed to another root still binds.
        "issuer-other-root" => root.with_authority(|a| a.issuer = k.other_root.principal.clone()),
        _ => panic!("binding_spec.json: no token {name}"),
    }
}

/// A case of `data/tables/binding_spec.json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecRow {
    id: String,
    description: String,
    requirements: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    input: SpecOf,
    expect: Expectation,
}

/// How a row's input is built.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum SpecOf {
    /// Root's contract `contract` requiring `required`, and the token named `token`.
    Bind {
        contract: String,
        required: Vec<String>,
        token: String,
    },
    /// A malformed token or contract: see [`spec_case`].
    Build(String),
}

/// The inputs built by name.
fn spec_case(k: &Keys, name: &str) -> Value {
    let contract = contract_for(k, CONTRACT, &["docs:read"]);
    match name {
        "token-not-a-token" => input(&contract, encode_value(&json!({}))),
        // Refused before the token is looked at.
        "contract-id-malformed" => input(
            &set(&contract, "id", json!("ct_bad")),
            encode_value(&json!({})),
        ),
        // The contract's issuer is never used by binding: only the shape rule can refuse it.
        "contract-issuer-hex" => input(&hex_issuer(k), Chain::root(k).serialized()),
        _ => panic!("binding_spec.json: no construction {name}"),
    }
}

/// Adds group `bind-spec` to area `contract`.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g: &mut Group = area.group(
        "bind-spec",
        "contract.check_binding: §5.2 binding on the decoded token only — last contractId = contract.id, effective capabilities cover requiredCapabilities (D11, D43); token verification is dct.verify's, the combined check contract.bind's.",
    );
    for row in crate::tables::rows::<SpecRow>("binding_spec.json") {
        let n = g.number_of("binding_spec.json", &row.id);
        let inp = match row.input {
            SpecOf::Bind {
                contract,
                required,
                token: name,
            } => {
                let required: Vec<&str> = required.iter().map(String::as_str).collect();
                input(
                    &contract_for(&k, &contract, &required),
                    token(&k, &name).serialized(),
                )
            }
            SpecOf::Build(name) => spec_case(&k, &name),
        };
        let reqs: Vec<&str> = row.requirements.iter().map(String::as_str).collect();
        let flags: Vec<&str> = row.flags.iter().map(String::as_str).collect();
        g.case(n, &row.description, &reqs, &flags, OP, inp, row.expect);
    }
}
