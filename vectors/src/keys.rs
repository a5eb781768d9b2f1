//! The fixed, published keys every vector uses.
//!
//! Seed of key `<name>` = BLAKE2b-256 of the ASCII string `delegateos-conformance/key/<name>`.
//! Anyone can re-derive them; every vector file lists all of them (name, seed, principal) in
//! its header, so a file is self-contained.

use delegateos_reference::crypto::{blake2b256, Keypair};

use crate::format::KeyEntry;

/// Domain-separation prefix of the seed derivation.
pub const SEED_PREFIX: &str = "delegateos-conformance/key/";

/// One fixed key.
#[derive(Debug, Clone)]
pub struct Key {
    /// Role name (`root`, `alice`, …).
    pub name: &'static str,
    /// The 32-byte seed.
    pub seed: [u8; 32],
    /// The principal id (base64url of the public key).
    pub principal: String,
    /// The keypair, derived once: deriving it is a scalar multiplication, as costly as a
    /// signature, and the fuzzers re-sign with these keys on every case.
    keypair: Keypair,
}

impl Key {
    /// Derives key `name` from its published seed.
    pub fn derive(name: &'static str) -> Self {
        let seed = blake2b256(format!("{SEED_PREFIX}{name}").as_bytes());
        let keypair = Keypair::from_seed(&seed);
        Self {
            name,
            seed,
            principal: keypair.principal_id(),
            keypair,
        }
    }

    /// The seed as 64 lowercase hex characters (the form operation inputs take).
    pub fn seed_hex(&self) -> String {
        hex::encode(self.seed)
    }

    /// The keypair (a copy of the one derived with the key).
    pub fn keypair(&self) -> Keypair {
        self.keypair.clone()
    }
}

/// The fixed key set, one field per role.
#[derive(Debug, Clone)]
pub struct Keys {
    /// The root issuer (the verifier's `rootPublicKey` in most cases).
    pub root: Key,
    /// First delegatee.
    pub alice: Key,
    /// Second delegatee.
    pub bob: Key,
    /// Third delegatee.
    pub carol: Key,
    /// Fourth delegatee (long chains).
    pub dave: Key,
    /// Further delegatees for long chains (`agent5` … `agent9`).
    pub agents: [Key; 5],
    /// An attacker: signs things it has no authority over.
    pub mallory: Key,
    /// A second, unrelated root (wrong-root cases).
    pub other_root: Key,
}

impl Keys {
    /// Derives the whole key set.
    pub fn fixed() -> Self {
        Self {
            root: Key::derive("root"),
            alice: Key::derive("alice"),
            bob: Key::derive("bob"),
            carol: Key::derive("carol"),
            dave: Key::derive("dave"),
            agents: [
                Key::derive("agent5"),
                Key::derive("agent6"),
                Key::derive("agent7"),
                Key::derive("agent8"),
                Key::derive("agent9"),
            ],
            mallory: Key::derive("mallory"),
            other_root: Key::derive("other_root"),
        }
    }

    /// Every key, in header order.
    pub fn all(&self) -> [&Key; 12] {
        [
            &self.root,
            &self.alice,
            &self.bob,
            &self.carol,
            &self.dave,
            &self.mallory,
            &self.other_root,
            &self.agents[0],
            &self.agents[1],
            &self.agents[2],
            &self.agents[3],
            &self.agents[4],
        ]
    }

    /// The `keys` header of a vector file.
    pub fn header(&self) -> Vec<KeyEntry> {
        self.all()
            .iter()
            .map(|k| KeyEntry {
                name: k.name.to_owned(),
                seed: k.seed_hex(),
                principal: k.principal.clone(),
            })
            .collect()
    }
}
