//! Named, opt-in weakenings of single checks, used only by the harness to prove that the
//! vector corpus catches each one ("the corpus has teeth").
//!
//! Every fault is consulted with one `faults.has(Fault::X)` at the single place its check
//! happens, so the default path ([`Faults::none`]) is the protocol. The public entry points
//! (`verify::verify`, `glob::matches`, `glob::covers`, ...) call the `*_with_faults` variants
//! with no faults. Names are kebab-case and stable: harness reports and CI use them.

use std::collections::BTreeSet;

macro_rules! faults {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, )*) => {
        /// One weakening; see each variant for the check it disables.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Fault {
            $( $(#[$doc])* $variant, )*
        }

        impl Fault {
            /// Every fault, in declaration order.
            pub const ALL: &'static [Fault] = &[$(Fault::$variant,)*];

            /// The stable kebab-case name.
            pub fn name(self) -> &'static str {
                match self { $(Fault::$variant => $name,)* }
            }

            /// Looks a fault up by its kebab-case name.
            pub fn from_name(name: &str) -> Option<Fault> {
                match name { $($name => Some(Fault::$variant),)* _ => None }
            }
        }
    };
}

faults! {
    /// Step 3a: do not require `authority.issuer == ctx.rootPublicKey`.
    SkipRootKeyCheck = "skip-root-key-check",
    /// Step 3: verify each block with `signatures[i].signer` (and skip the signer==block-signer
    /// check) instead of `authority.issuer` / `attenuations[i].attenuator`.
    VerifyWithSignerField = "verify-with-signer-field",
    /// Step 3b: do not verify attenuation signatures.
    SkipAttenuationSignatures = "skip-attenuation-signatures",
    /// Step 3: do not check the count, `covers` and `signer` structure of `signatures[]`.
    SkipSignatureStructure = "skip-signature-structure",
    /// Step 2: only the authority block is checked against the revocation list.
    IgnoreAttenuationRevocations = "ignore-attenuation-revocations",
    /// Step 2: only the last block (the presented delegation) is checked.
    LastBlockRevocationOnly = "last-block-revocation-only",
    /// Step 2: any well-signed entry revokes, whoever `revokedBy` is (D6 (c) skipped).
    RevocationIgnoresRevoker = "revocation-ignores-revoker",
    /// Steps 4d and 5: compare timestamps as strings instead of instants.
    ExpiryStringCompare = "expiry-string-compare",
    /// Step 5: no expiry check.
    SkipExpiry = "skip-expiry",
    /// Step 5: expired when `now >= expiry` (the spec says `>`).
    ExpiryInclusive = "expiry-inclusive",
    /// Step 6: deny only when `spent > budget` (the spec says `>=`).
    BudgetInclusive = "budget-inclusive",
    /// Step 6: no budget check.
    SkipBudgetCheck = "skip-budget-check",
    /// Step 4a: do not require `attenuator == current delegatee`.
    SkipAttenuatorCheck = "skip-attenuator-check",
    /// Step 4b: accept any `allowedCapabilities`.
    SkipCapabilityNarrowing = "skip-capability-narrowing",
    /// Step 4c: accept a larger `maxBudgetMicrocents`.
    SkipBudgetNarrowing = "skip-budget-narrowing",
    /// Step 4d: accept a later `expiresAt`.
    SkipExpiryNarrowing = "skip-expiry-narrowing",
    /// Step 4e: accept `maxChainDepth >= remaining`.
    SkipDepthNarrowing = "skip-depth-narrowing",
    /// Step 4e: never return `chain_depth_exceeded`.
    SkipDepthCheck = "skip-depth-check",
    /// Glob: a resource matches if it starts with the pattern's text before the first `*`
    /// (trailing `/` removed), so `/project/**` matches `/projectX/a`.
    GlobPrefixNoBoundary = "glob-prefix-no-boundary",
    /// Glob: a `*` segment matches one or more segments (crosses `/`).
    GlobStarCrossesSegments = "glob-star-crosses-segments",
    /// Subset: child covered if its resource starts with the parent's text before the first `*`.
    SubsetStringPrefix = "subset-string-prefix",
    /// Step 7 and subset: an action `"*"` matches any action.
    ActionWildcard = "action-wildcard",
    /// Step 1: accept decoded JSON that is not in canonical form.
    AcceptNonCanonicalToken = "accept-non-canonical-token",
    /// Step 1: accept unknown fields.
    AcceptUnknownFields = "accept-unknown-fields",
    /// Ed25519: dalek's non-strict `verify` (no small-order / torsion / canonical-A checks).
    LenientSignature = "lenient-signature",
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of faults; [`Faults::none`] is the protocol.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults(BTreeSet<Fault>);

impl Faults {
    /// No faults: the specified behaviour.
    pub fn none() -> Self {
        Self::default()
    }

    /// Exactly one fault.
    pub fn one(fault: Fault) -> Self {
        Self(BTreeSet::from([fault]))
    }

    /// Parses kebab-case names; returns the first unknown name as the error.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        names
            .into_iter()
            .map(|n| Fault::from_name(n).ok_or_else(|| n.to_owned()))
            .collect::<Result<BTreeSet<_>, _>>()
            .map(Self)
    }

    /// Adds a fault.
    pub fn insert(&mut self, fault: Fault) {
        self.0.insert(fault);
    }

    /// True if `fault` is injected.
    pub fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }

    /// True if no fault is injected.
    pub fn is_none(&self) -> bool {
        self.0.is_empty()
    }

    /// The injected faults in order.
    pub fn iter(&self) -> impl Iterator<Item = Fault> + '_ {
        self.0.iter().copied()
    }
}

impl FromIterator<Fault> for Faults {
    fn from_iter<I: IntoIterator<Item = Fault>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}
