//! `dct.verify`: the token mutator ([`crate::fuzz::mutate`]) as a registered operation. Its
//! seeds are the builtin chains and the corpus's valid `dct.verify` cases of area `dct`, its
//! view the decoded token and the verification context (`{"token": …, "context": …}`), its
//! changes structural [`Mutation`]s drawn on the seed's token, every block re-signed with its
//! declared signer's test key unless a mutation forges it, and its findings graded by the
//! §10.1 step the reference's answer names ([`Grading::ByStep`]).

use delegateos_reference::ops::Outcome;
use serde_json::{json, Value};

use super::{Changes, Fuzzable, Grading, Signing};
use crate::format::{Expectation, Expected, Ground, Stake};
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::{self, Mutation, Seed};
use crate::fuzz::ops::edit::Edit;
use crate::fuzz::seed::{self, OpSeed, MAX_EDITS};
use crate::keys::Keys;
use crate::load::LoadedFile;

/// `dct.verify`.
#[derive(Debug)]
pub struct Verify;

/// The view of a token seed: its decoded token and its context.
fn view_of(seed: &Seed) -> Value {
    json!({ "token": seed.token, "context": seed.context })
}

/// A builtin chain as a seed: valid, normative, no corpus case behind it.
fn builtin(seed: &Seed) -> OpSeed {
    OpSeed {
        origin: seed.origin.clone(),
        requirements: seed.requirements.clone(),
        flags: seed.flags.clone(),
        level: seed.level,
        ground: Ground::Differential {
            level: seed.level,
            reason: "a builtin chain of the token fuzzer".to_owned(),
        },
        stake: Stake {
            granted: String::new(),
            refused: String::new(),
            wrong_output: String::new(),
            crash_or_hang: String::new(),
        },
        view: view_of(seed),
        expect: Expectation::Valid {
            output: json!({ "valid": true }),
        },
    }
}

impl Fuzzable for Verify {
    fn name(&self) -> &'static str {
        "dct.verify"
    }

    fn grading(&self) -> Grading {
        Grading::ByStep
    }

    /// The token fuzzer's stream predates the per-operation salt: none, so a `--seed` explores
    /// the same `dct.verify` cases as before the registry took it in.
    fn stream_salt(&self) -> u64 {
        0
    }

    /// Unbounded: the corpus's own tokens go up to 1 MiB (a valid one among them), and a
    /// token's size is what some of its cases test.
    fn bounded_input(&self) -> bool {
        false
    }

    /// The builtin chains, then the valid `dct.verify` cases of area `dct` whose token decodes.
    fn seeds(&self, files: &[LoadedFile], keys: &Keys) -> Vec<OpSeed> {
        let mut seeds: Vec<OpSeed> = mutate::builtin_seeds(keys).iter().map(builtin).collect();
        for loaded in files {
            let file = &loaded.file;
            if file.area != "dct" {
                continue;
            }
            for case in &file.cases {
                let valid = matches!(case.expect.outcomes().first(), Some(Expected::Valid { .. }));
                if case.op != "dct.verify" || !valid {
                    continue;
                }
                let requirements = case.requirements.clone();
                if let Some(seed) = Seed::from_input(&case.id, requirements, &case.input) {
                    seeds.push(OpSeed {
                        origin: seed.origin.clone(),
                        requirements: seed.requirements.clone(),
                        flags: case.flags.clone(),
                        level: case.level,
                        ground: case.ground.clone(),
                        stake: case.stake.clone(),
                        view: view_of(&seed),
                        expect: case.expect.clone(),
                    });
                }
            }
        }
        seeds
    }

    /// 1..=[`MAX_EDITS`] mutations, each drawn on the seed's token; signatures are the
    /// mutations' concern (re-signed unless forged), so the signing mode is not drawn.
    fn random_changes(&self, mut rng: &mut dyn Entropy, seed: &OpSeed, keys: &Keys) -> Changes {
        let n = 1 + rng.below(MAX_EDITS);
        let token = seed.view.get("token").unwrap_or(&Value::Null);
        Changes {
            signing: Signing::Resign,
            mutations: (0..n)
                .map(|_| mutate::random(&mut rng, token, keys))
                .collect(),
            edits: Vec::new(),
        }
    }

    fn build(
        &self,
        seed_view: &Value,
        mutations: &[Mutation],
        _edits: &[Edit],
        _signing: Signing,
        keys: &Keys,
    ) -> Value {
        let null = Value::Null;
        let token = seed_view.get("token").unwrap_or(&null);
        let context = seed_view.get("context").unwrap_or(&null);
        mutate::build(token, context, mutations, keys)
    }

    fn expectation(
        &self,
        seed: &OpSeed,
        input: &Value,
        reference: &Outcome,
    ) -> Option<Expectation> {
        seed::token_expectation(seed, input, reference)
    }
}

/// The operations this family fuzzes (the registry takes those whose catalogue row names
/// `token`).
pub static FUZZABLE: &[&dyn super::Fuzzable] = &[&Verify];
