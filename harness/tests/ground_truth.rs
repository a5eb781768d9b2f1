//! Ground truth for the findings model (issue 26): every seeded bug of the JavaScript red-team
//! adapters has a severity by its effect, assigned here from what the bug lets an attacker do
//! (`spec/severity.md`), never from what a run reported. The tests check the report against it:
//!
//! 1. with ONE bug on, the top finding has the bug's severity, each critical effect of the bug
//!    is on one finding, and the bug yields at most 3 findings (a few bugs reach more checks
//!    than that; each is listed with its reason);
//! 2. with ALL bugs of an adapter on, the critical findings number at most the critical bugs
//!    plus 20 %, every one is a finding some critical bug yields on its own, and every critical
//!    bug's own top finding has its cases among them (the first screen names every critical
//!    bug); a few bugs (`FIRST_CRITICAL_LINES`) must be within the first n critical lines.
//! 3. with ONE bug on, the run names the bug's seeded fault of the catalogue
//!    (`spec/data/faults.json`) exactly once and no other fault, with at most the listed
//!    number of findings no fault explains (`SEEDED`, issue 47).
//!
//! Failures of the adapters' careful path (`REDTEAM_BUGS=`, node's OpenSSL Ed25519 accepting
//! non-canonical identity keys) are not seeded bugs and are left out of every count.
//! Needs `node` (≥ 18); without it the tests print SKIPPED and return.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

/// (bug, severity of its effect, why).
type Truth = (&'static str, &'static str, &'static str);

const JS_HASTY: &[Truth] = &[
    (
        "budget-falsy",
        "critical",
        "a zero budget means unlimited: spend above the budget allowed",
    ),
    (
        "depth-falsy",
        "critical",
        "maxChainDepth 0 means unlimited: deeper chains accepted",
    ),
    (
        "caps-empty-inherit",
        "critical",
        "an empty capability list inherits the parent's: scope widened",
    ),
    (
        "glob-regex-unescaped",
        "critical",
        "regex metacharacters in patterns match unnamed resources and backtrack",
    ),
    (
        "glob-replace-first",
        "critical",
        "only the first `*` is translated: patterns match more",
    ),
    (
        "glob-star-empty",
        "critical",
        "a backtracking regex translation hangs on hostile patterns",
    ),
    (
        "date-parse",
        "critical",
        "Date.parse accepts and misreads timestamps: expired tokens accepted",
    ),
    (
        "b64-lenient",
        "medium",
        "lenient base64url: non-canonical encodings accepted, no authority changes",
    ),
    (
        "json-lenient",
        "critical",
        "duplicate keys and non-canonical JSON accepted, signatures still checked; but a token \
         whose attenuations is not an array makes it throw (a crash on untrusted input)",
    ),
    (
        "request-as-pattern",
        "critical",
        "the requested resource is used as a pattern: wildcards in requests widen scope",
    ),
    (
        "revid-blake2b512",
        "critical",
        "revocation ids never match: revoked tokens keep working",
    ),
    (
        "expiry-authority-only",
        "critical",
        "attenuation expiries ignored: expired tokens accepted",
    ),
    (
        "unsafe-integers",
        "critical",
        "integers past 2^53 and fractions accepted: a fractional depth lifts the depth limit",
    ),
    (
        "subset-via-match",
        "critical",
        "subset decided by matching the child pattern as a resource: widening accepted",
    ),
    (
        "attenuator-vs-authority",
        "critical",
        "attenuations checked against the authority's delegatee only: forged attenuations accepted",
    ),
    (
        "resource-normalize",
        "critical",
        "resources normalised before matching: `..` escapes the granted subtree",
    ),
    (
        "resource-nfc",
        "critical",
        "resources NFC-normalised before matching: other resources granted",
    ),
    (
        "revocation-ids-raw",
        "critical",
        "non-canonical tokens accepted, revocation ids over the raw block bytes: a revoked token \
         re-encoded keeps working",
    ),
    (
        "revocation-ids-typed",
        "critical",
        "unknown members ignored, revocation ids over the typed block without them: a re-signed \
         block with an extra member escapes its revocation",
    ),
    (
        "key-padding-lenient",
        "medium",
        "keyed signature checks decode `=`-padded keys leniently: a lenient parse, the signature \
         is still checked under the signer's own key",
    ),
];

const JS_CHAIN: &[Truth] = &[
    ("expiry-inclusive", "medium", "tokens refused at exactly their expiry: valid input refused"),
    ("budget-gt", "critical", "spend equal to the budget treated as within it where the spec denies it: an off-by-one overspend"),
    ("revocation-last-block", "critical", "only the last block's revocation is checked: revoked tokens keep working"),
    ("revocation-unsigned", "high", "unsigned revocation entries revoke: anyone can revoke a token"),
    ("subset-startswith", "critical", "subset by string prefix: `/project` admits `/projectX`"),
    ("attenuator-first-only", "critical", "only the first attenuator is checked: forged later attenuations accepted"),
    ("last-signature-only", "critical", "only the last signature is verified: forged earlier blocks accepted"),
    ("covers-ignored", "critical", "`covers` ignored: a signature over another block accepted"),
    ("depth-ignores-chaindepth", "critical", "authority.chainDepth ignored: deeper chains accepted"),
    ("case-insensitive", "critical", "case-insensitive matching: other namespaces, actions, resources granted"),
    ("depth-no-count", "critical", "attenuations not counted: deeper chains accepted"),
    ("caps-union", "critical", "effective capabilities are the union over the chain: narrowing undone"),
    ("glob-doublestar-dotstar", "critical", "`**` as `.*`: crosses into other subtrees and backtracks"),
    ("narrow-vs-authority", "critical", "narrowing checked against the authority, not the parent: widening accepted"),
    ("cap-cross-product", "critical", "namespace, action and resource matched independently: a cross product granted"),
    ("subset-cross-product", "critical", "subset checked member by member across capabilities: widening accepted"),
    ("offset-sign", "critical", "UTC offsets applied with the wrong sign: expired tokens accepted"),
    ("depth-le", "critical", "depth compared with <= where < is required: one level too deep accepted"),
    ("issuedat-notbefore", "medium", "issuedAt used as not-before: valid tokens refused"),
    ("format-unchecked", "medium", "the inner format member is not checked: a lenient parse"),
    ("root-signer-key", "critical", "the root signature is verified under signatures[0].signer, not the issuer: anyone can mint root tokens"),
];

/// Bugs whose finding, with all of their adapter's bugs on, is among the first `n` critical
/// lines of the text report (the head of the list is what a reader acts on first), and why.
const FIRST_CRITICAL_LINES: &[(&str, usize, &str)] = &[(
    "root-signer-key",
    3,
    "anyone can mint root tokens: the worst forgery, whatever else the adapter breaks",
)];

const JS_CHECKS: &[Truth] = &[
    (
        "shared-instance",
        "medium",
        "one shared Ajv instance: the second compilation of an $id throws, valid input refused",
    ),
    (
        "cache-by-id",
        "high",
        "validators looked up by $id: another schema with that $id passes what it must fail",
    ),
    (
        "regex-by-name",
        "high",
        "regexes cached by check name: another pattern under that name passes what it must fail",
    ),
];

/// Bugs that reach more than three checks with one mistake, and why (issue 26's bound of
/// three findings per bug does not hold for them).
const MANY_FINDINGS: &[(&str, &str)] = &[
    (
        "cache-by-id",
        "one validator cache serves check.run and output.verify: a stale validator passes some \
         outputs and refuses others, under json_schema's rule and the composites'",
    ),
    (
        "regex-by-name",
        "one regex cache keyed by the check name serves every regex_match in the process: the \
         stale pattern passes some outputs and refuses others, in the dialect, syntax and \
         composite cases alike",
    ),
    (
        "caps-union",
        "the union is read by every check of effective capabilities: the AuthorizedScope, \
         subset, capability check, empty lists and glob companions each see it",
    ),
    (
        "offset-sign",
        "wrong instants show in expiry (bypass and refusal), in timestamp.compare and in the \
         codes of precedence cases",
    ),
];

/// Bugs whose one mistake lives in a helper two algorithms share, so that the same critical
/// effect is on one finding per algorithm (rules name the broken algorithm,
/// `spec/severity.md` §3), and why.
const SHARED_HELPER: &[(&str, &str)] = &[
    (
        "case-insensitive",
        "one case-insensitive comparison serves the subset rule and the capability check",
    ),
    (
        "caps-union",
        "the union is read by the AuthorizedScope, the subset rule, the capability check and \
         the glob companions",
    ),
    (
        "cap-cross-product",
        "namespace, action and resource matched independently: the capability check grants a \
         cross product and the glob companions see the resource matched alone",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs the whole default corpus against `adapter` with `REDTEAM_BUGS=bugs` (unset: all);
/// returns the JSON report.
fn report(adapter: &str, bugs: Option<&str>) -> Value {
    report_and_text(adapter, bugs).0
}

/// The per-case deadline of an adapter's runs. js-checks answers its slowest case in 0.25 s
/// on a loaded 2-core machine, and every bug variant, the careful path included, hangs alike on
/// the 4 hostile regex cases (ECMAScript backtracking, >10^60 steps), so each of its 5 runs
/// waits out 4 deadlines: 5 s is still 20 times its slowest answer. The others run the whole
/// corpus with more hostile inputs under two test workers: 20 s.
fn deadline_ms(adapter: &str) -> &'static str {
    if adapter == "js-checks" {
        "5000"
    } else {
        "20000"
    }
}

/// As [`report`], with the text report too.
fn report_and_text(adapter: &str, bugs: Option<&str>) -> (Value, String) {
    let script = root().join(format!("implementations/redteam/{adapter}/adapter.js"));
    let out = std::env::temp_dir().join(format!(
        "delegateos-truth-{adapter}-{}-{}.json",
        bugs.unwrap_or("ALL").replace(',', "_"),
        std::process::id()
    ));
    let mut cmd = Command::new(BIN);
    cmd.current_dir(root())
        .arg("run")
        .arg("--no-progress")
        .arg("--impl")
        .arg(format!("node '{}'", script.display()))
        // A generous deadline: a hang must be a hang on any machine, not a slow answer under
        // the load of this test's two workers (the hostile cases take >10^60 steps).
        .args(["--timeout-ms", deadline_ms(adapter)])
        .args(["--format", "json", "--output"])
        .arg(&out)
        .arg("--report")
        .arg(format!("text={}.txt", out.display()));
    match bugs {
        Some(b) => cmd.env("REDTEAM_BUGS", b),
        None => cmd.env_remove("REDTEAM_BUGS"),
    };
    let status = cmd.output().expect("run the harness");
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("no report from {adapter} {bugs:?}: {e} ({status:?})"));
    let _ = std::fs::remove_file(&out);
    let txt = format!("{}.txt", out.display());
    let human = std::fs::read_to_string(&txt).unwrap_or_default();
    let _ = std::fs::remove_file(&txt);
    (serde_json::from_str(&text).expect("JSON report"), human)
}

/// Lines of a terminal screen: the text report's first screen must hold every critical
/// finding.
const SCREEN: usize = 50;

/// The findings of a report, without those whose every case also fails on the careful path.
fn findings(report: &Value, careful: &BTreeSet<String>) -> Vec<Value> {
    report["findings"]
        .as_array()
        .expect("findings array")
        .iter()
        .filter(|f| {
            !f["ids"]
                .as_array()
                .expect("ids")
                .iter()
                .all(|i| careful.contains(i.as_str().unwrap_or("")))
        })
        .cloned()
        .collect()
}

fn careful_failures(adapter: &str) -> BTreeSet<String> {
    report(adapter, Some(""))["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .flat_map(|f| f["ids"].as_array().cloned().unwrap_or_default())
        .filter_map(|i| i.as_str().map(str::to_owned))
        .collect()
}

/// Runs each bug alone and returns its findings (one run at a time: the tests of this file
/// already run side by side, and a loaded machine must not turn a slow answer into a hang).
fn per_bug(
    adapter: &'static str,
    truth: &[Truth],
    careful: &BTreeSet<String>,
) -> BTreeMap<&'static str, Vec<Value>> {
    truth
        .iter()
        .map(|t| (t.0, findings(&report(adapter, Some(t.0)), careful)))
        .collect()
}

/// Each JavaScript red-team bug's seeded fault of the catalogue (`spec/data/faults.json`),
/// the number of further findings it may add that no fault explains, and why: with the bug
/// alone, the run must name exactly that fault once and no other fault (issue 47). `None`:
/// the mistake is not in the catalogue (its realisation needs what the reference lacks), so
/// no finding of it may be named after any fault.
#[rustfmt::skip]
const SEEDED: &[(&str, Option<&str>, usize, &str)] = &[
    ("budget-falsy", Some("verify.4c.zero-budget-ignored"), 0, ""),
    ("depth-falsy", Some("verify.4e.zero-depth-ignored"), 0, ""),
    ("caps-empty-inherit", Some("verify.4b.empty-capabilities-inherit"), 0, ""),
    ("glob-regex-unescaped", Some("glob.regex-unescaped"), 0, ""),
    ("glob-replace-first", Some("glob.regex-first-double-star"), 0, ""),
    ("glob-star-empty", Some("glob.regex-translation"), 0, "its `*` matching an empty segment is D1's other reading"),
    ("date-parse", Some("timestamp.date-parse"), 0, ""),
    ("b64-lenient", Some("base64url.node-buffer"), 0, ""),
    ("json-lenient", Some("token.json-parse-lenient"), 0, ""),
    ("request-as-pattern", Some("verify.7.request-as-pattern"), 0, ""),
    ("revid-blake2b512", Some("revocation.id-blake2b512-truncated"), 0, ""),
    ("expiry-authority-only", Some("verify.5.authority-expiry-only"), 0, ""),
    ("unsafe-integers", Some("token.integers-any-number"), 0, ""),
    ("subset-via-match", Some("subset.child-matched-as-resource"), 0, ""),
    ("attenuator-vs-authority", Some("verify.4a.attenuator-authority-delegatee"), 0, ""),
    ("resource-normalize", Some("glob.paths-normalized"), 0, ""),
    ("resource-nfc", Some("glob.unicode-normalized"), 0, ""),
    ("revocation-ids-raw", Some("verify.2.revocation-id-over-raw-text"), 0, ""),
    ("revocation-ids-typed", Some("verify.2.revocation-id-over-typed-block"), 0, ""),
    ("key-padding-lenient", Some("signature.key-decoding-lenient"), 0, ""),
    ("expiry-inclusive", Some("verify.5.expiry-inclusive"), 0, ""),
    ("budget-gt", Some("verify.6.budget-strictly-greater"), 0, ""),
    ("revocation-last-block", Some("verify.2.last-block-only"), 0, ""),
    ("revocation-unsigned", Some("revocation.entry-signature-unchecked"), 0, ""),
    ("subset-startswith", Some("subset.resource-prefix"), 0, ""),
    ("attenuator-first-only", Some("verify.4a.attenuator-unchecked"), 0, ""),
    ("last-signature-only", Some("verify.3b.last-signature-only"), 0, ""),
    ("covers-ignored", Some("verify.3.covers-unchecked"), 0, ""),
    ("depth-ignores-chaindepth", Some("verify.4e.chain-depth-ignored"), 0, ""),
    ("case-insensitive", Some("capability.names-case-insensitive"), 0, ""),
    ("depth-no-count", Some("verify.4e.depth-not-counted"), 0, ""),
    ("caps-union", Some("verify.4b.capabilities-union"), 0, ""),
    ("glob-doublestar-dotstar", Some("glob.regex-translation"), 0, ""),
    ("narrow-vs-authority", Some("verify.4.narrowed-against-authority"), 0, ""),
    ("cap-cross-product", Some("verify.7.capability-cross-product"), 0, ""),
    ("subset-cross-product", Some("verify.4b.subset-cross-product"), 0, ""),
    ("offset-sign", Some("timestamp.offset-sign-reversed"), 0, ""),
    ("depth-le", Some("verify.4e.depth-off-by-one"), 0, ""),
    ("issuedat-notbefore", Some("verify.5.issued-at-as-not-before"), 0, ""),
    ("format-unchecked", Some("token.format-unchecked"), 0, ""),
    ("root-signer-key", Some("verify.3a.signer-member-as-key"), 0, ""),
    // js-checks: stateful faults, named from the stateful groups their state reaches in the
    // fingerprint test; the other failures of their operations join them.
    ("shared-instance", Some("checks.schema-id-registered-twice"), 0, ""),
    ("cache-by-id", Some("checks.schema-cached-by-id"), 0, ""),
    ("regex-by-name", Some("checks.regex-cached-by-name"), 0, ""),
];

/// Bugs whose seeded fault the all-bugs run cannot name, and why. (`revocation-unsigned` was
/// masked by `caps-union`, whose fingerprint shares its seven attenuated dct-revoked cases,
/// until issue 47 added `dct-revoked-0085`, a root-only twin of them that tells the two apart.)
const MASKED_WITH_ALL_BUGS: &[(&str, &str)] = &[(
    "shared-instance",
    "js-checks with cache-by-id on never compiles a second schema under a seen `$id` (it takes \
     ajv.getSchema(id) first), so the shared instance's \"already exists\" cannot happen: the \
     bug has no effect beside cache-by-id, and nothing of it is left to name",
)];

/// The seeded-fault problems of one bug's findings (`SEEDED`): its fault named exactly once,
/// no other fault named, and at most the allowed number of further findings.
fn seeded_fault_problems(bug: &str, fs: &[Value]) -> Vec<String> {
    let Some((_, seeded, extra, why)) = SEEDED.iter().find(|s| s.0 == bug) else {
        return Vec::new();
    };
    let named: Vec<&str> = fs
        .iter()
        .filter_map(|f| f["key"].as_str()?.strip_prefix("fault:"))
        .collect();
    let mut problems = Vec::new();
    let want: Vec<&str> = seeded.iter().copied().collect();
    if named != want {
        problems.push(format!(
            "{bug}: names faults {named:?}, its seeded fault is {want:?}"
        ));
    }
    let others = fs.len() - named.len();
    if others > *extra {
        problems.push(format!(
            "{bug}: {others} findings no fault explains, at most {extra} expected ({why})"
        ));
    }
    problems
}

fn check(adapter: &'static str, truth: &[Truth]) {
    if !node_available() {
        println!("SKIPPED: node not found");
        return;
    }
    // The careful path once: its failures (e.g. hostile regexes that hang every variant of an
    // adapter alike) are nobody's bug here, and each of its runs costs their deadlines.
    let careful = careful_failures(adapter);
    let by_bug = per_bug(adapter, truth, &careful);
    let mut problems = Vec::new();
    let mut table = String::new();
    for (bug, severity, why) in truth {
        let fs = &by_bug[bug];
        let top = fs
            .first()
            .map_or("none", |f| f["severity"].as_str().unwrap_or("?"));
        table.push_str(&format!(
            "{adapter} {bug:<26} expected {severity:<8} top {top:<8} findings {}: {}\n",
            fs.len(),
            fs.iter()
                .map(|f| format!("{}({})", f["key"].as_str().unwrap_or("?"), f["cases"]))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        if top != *severity {
            problems.push(format!(
                "{bug}: top finding {top}, by its effect {severity} ({why})"
            ));
        }
        // One root cause, one finding: a bug's critical effect is on one line (a flag that
        // agrees with a rule joins its finding), unless the bug breaks two algorithms.
        let mut effects = BTreeSet::new();
        let shared = SHARED_HELPER.iter().any(|(b, _)| b == bug);
        for f in fs.iter().filter(|f| f["severity"] == "critical" && !shared) {
            if !effects.insert(f["effect"].as_str().unwrap_or("?")) {
                problems.push(format!(
                    "{bug}: its effect {} is on more than one critical finding",
                    f["effect"]
                ));
            }
        }
        problems.extend(seeded_fault_problems(bug, fs));
        if fs.len() > 3 && !MANY_FINDINGS.iter().any(|(b, _)| b == bug) {
            problems.push(format!("{bug}: {} findings for one bug", fs.len()));
        }
    }
    // All bugs on.
    let (all_report, text) = report_and_text(adapter, None);
    let all = findings(&all_report, &careful);
    // Every failing case names the finding that lists it (joined cases included).
    let listed: BTreeMap<&str, &str> = all_report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| {
            let key = f["key"].as_str().unwrap_or("?");
            f["ids"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(move |id| (id, key))
        })
        .collect();
    for c in all_report["cases"].as_array().expect("cases") {
        let id = c["id"].as_str().unwrap_or("?");
        if let (Some(key), Some(named)) = (listed.get(id), c["finding"].as_str()) {
            if key != &named {
                problems.push(format!(
                    "all bugs: case {id} names {named}, listed under {key}"
                ));
            }
        }
    }
    // Each seeded fault is named in the all-bugs run too, or a named fault whose fingerprint
    // holds its whole fingerprint (several truthiness bugs are one falsy-restrictions fault).
    let prints: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("spec/data/fingerprints.json"))
            .expect("spec/data/fingerprints.json"),
    )
    .expect("fingerprints JSON");
    let print = |id: &str| -> BTreeSet<String> {
        prints["fingerprints"][id]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let named: Vec<&str> = all_report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["key"].as_str()?.strip_prefix("fault:"))
        .collect();
    for (bug, ..) in truth {
        let Some((_, Some(seeded), ..)) = SEEDED.iter().find(|s| s.0 == *bug) else {
            continue;
        };
        if let Some((_, why)) = MASKED_WITH_ALL_BUGS.iter().find(|m| m.0 == *bug) {
            table.push_str(&format!("{adapter} all bugs: {bug} masked: {why}\n"));
            continue;
        }
        let own = print(seeded);
        let by = named
            .iter()
            .find(|n| **n == *seeded || print(n).is_superset(&own));
        table.push_str(&format!(
            "{adapter} all bugs: {bug}'s fault {seeded} named as {}\n",
            by.unwrap_or(&"nothing")
        ));
        if by.is_none() {
            problems.push(format!(
                "all bugs: {bug}'s seeded fault {seeded} is not named (named: {named:?})"
            ));
        }
    }
    let screen: Vec<&str> = text.lines().take(SCREEN).collect();
    let critical: Vec<&Value> = all.iter().filter(|f| f["severity"] == "critical").collect();
    let critical_bugs: Vec<&str> = truth
        .iter()
        .filter(|t| t.1 == "critical")
        .map(|t| t.0)
        .collect();
    let bound = (critical_bugs.len() * 6).div_ceil(5);
    table.push_str(&format!(
        "{adapter} all bugs: {} critical findings for {} critical bugs (bound {bound})\n",
        critical.len(),
        critical_bugs.len()
    ));
    if critical.len() > bound {
        problems.push(format!(
            "all bugs: {} critical findings, more than {bound}",
            critical.len()
        ));
    }
    let own = |severity: &str, member: &str| -> BTreeSet<String> {
        truth
            .iter()
            .filter(|t| t.1 == severity)
            .flat_map(|t| by_bug[t.0].iter())
            .filter(|f| f["severity"] == "critical")
            .filter_map(|f| f[member].as_str().map(str::to_owned))
            .collect()
    };
    // Every critical finding is a critical bug's own, or (bugs interacting on one case) has
    // an effect some critical bug has on its own, or only cases some bug makes critical on its
    // own (a hang joined to a bug's fault alone stays a hang finding when several faults of
    // its operation are named): never a medium bug rated critical.
    let from_critical_bugs = own("critical", "key");
    let critical_effects = own("critical", "effect");
    let critical_cases: BTreeSet<String> = truth
        .iter()
        .flat_map(|t| by_bug[t.0].iter())
        .filter(|f| f["severity"] == "critical")
        .flat_map(|f| f["ids"].as_array().cloned().unwrap_or_default())
        .filter_map(|i| i.as_str().map(str::to_owned))
        .collect();
    for f in &critical {
        let key = f["key"].as_str().unwrap_or("?");
        let effect = f["effect"].as_str().unwrap_or("?");
        if !from_critical_bugs.contains(key) {
            table.push_str(&format!(
                "{adapter} all bugs: {key} arises from bugs interacting\n"
            ));
            let own_cases = f["ids"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .all(|i| critical_cases.contains(i));
            if !critical_effects.contains(effect) && !own_cases {
                problems.push(format!(
                    "all bugs: critical finding {key} is no critical bug's effect"
                ));
            }
        }
    }
    for f in &critical {
        let example = f["example"]["id"].as_str().unwrap_or("?");
        if !screen
            .iter()
            .any(|l| l.contains("CRITICAL") && l.contains(example))
        {
            problems.push(format!(
                "all bugs: critical finding {} (e.g. {example}) is not on the first {SCREEN} lines",
                f["key"]
            ));
        }
    }
    // Every critical bug's top finding is on the first screen: a critical finding of the
    // all-bugs run has its key, its cases, or its hint (a flagged case joins its rule's finding
    // where the run has one, spec/severity.md §3).
    let critical_ids: BTreeSet<&str> = critical
        .iter()
        .flat_map(|f| f["ids"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    for bug in &critical_bugs {
        let Some(top) = by_bug[bug].first() else {
            continue;
        };
        let ids: Vec<&str> = top["ids"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        // Its key, its cases, or (a flag or output member whose cases joined a rule's finding)
        // its hint in a critical finding.
        let key = top["key"].as_str().unwrap_or("?");
        let decider = key.rsplit_once('/').map_or(key, |(d, _)| d);
        let hint = format!("In particular ({decider})");
        let named = critical
            .iter()
            .any(|f| f["key"] == key || f["fix"].as_str().is_some_and(|fix| fix.contains(&hint)));
        if !named && !ids.iter().any(|i| critical_ids.contains(i)) {
            problems.push(format!(
                "all bugs: critical bug {bug}'s top finding {} ({}) is not on the first screen",
                top["key"],
                ids.join(", ")
            ));
        }
    }
    // Bugs whose finding must head the list: one of the first `n` critical lines of the text
    // report names a critical finding of the all-bugs run that has the bug's own top finding's
    // key or one of its cases.
    let critical_lines: Vec<&str> = text
        .lines()
        .filter(|l| {
            let mut w = l.split_whitespace();
            w.next().is_some_and(|c| {
                c.len() > 1 && c.starts_with('C') && c[1..].bytes().all(|b| b.is_ascii_digit())
            }) && w.next() == Some("CRITICAL")
        })
        .collect();
    for (bug, n, why) in FIRST_CRITICAL_LINES {
        let Some(top) = by_bug.get(bug).and_then(|fs| fs.first()) else {
            continue;
        };
        let own: BTreeSet<&str> = top["ids"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let head = &critical_lines[..critical_lines.len().min(*n)];
        let on_head = critical.iter().any(|f| {
            let example = f["example"]["id"].as_str().unwrap_or("?");
            let ours = f["key"] == top["key"]
                || f["ids"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .any(|i| own.contains(i));
            ours && head.iter().any(|l| l.contains(example))
        });
        table.push_str(&format!(
            "{adapter} all bugs: {bug}'s finding {} within the first {n} critical lines: {on_head}\n",
            top["key"]
        ));
        if !on_head {
            problems.push(format!(
                "all bugs: {bug}'s finding {} is not among the first {n} critical lines ({why}):\n{}",
                top["key"],
                head.join("\n")
            ));
        }
    }
    println!("{table}");
    assert!(problems.is_empty(), "{table}\n{}", problems.join("\n"));
}

#[test]
fn js_hasty_findings_match_the_ground_truth() {
    check("js-hasty", JS_HASTY);
}

#[test]
fn js_chain_findings_match_the_ground_truth() {
    check("js-chain", JS_CHAIN);
}

/// Output checks across requests (ajv from `harness/mcp-smoke`, installed by `npm ci` there;
/// CI runs this after installing it).
#[test]
fn js_checks_findings_match_the_ground_truth() {
    let ajv = root().join("harness/mcp-smoke/node_modules/ajv/package.json");
    if !ajv.exists() {
        println!("SKIPPED: ajv not installed (npm ci --prefix harness/mcp-smoke)");
        return;
    }
    check("js-checks", JS_CHECKS);
}

/// The differential fuzzer reports finding kinds, not mutation sets (issue 26): against an
/// adapter with many bugs, every written finding has its own kind, repeats are counted as hits
/// of the kind they reached, a refusal with another code is never rated above medium, and the
/// acceptances the seeded bugs cause (forged covers, widened attenuations) are critical.
#[test]
fn fuzz_reports_one_finding_per_kind_with_severity_by_effect() {
    if !node_available() {
        println!("SKIPPED: node not found");
        return;
    }
    let dir = std::env::temp_dir().join(format!("delegateos-truth-fuzz-{}", std::process::id()));
    let script = root().join("implementations/redteam/js-chain/adapter.js");
    let out = Command::new(BIN)
        .current_dir(root())
        .args(["fuzz", "--impl"])
        .arg(format!("node '{}'", script.display()))
        .args([
            "--seed",
            "3",
            "--max-cases",
            "400",
            "--duration",
            "10m",
            "--timeout-ms",
            "20000",
        ])
        .arg("--out")
        .arg(&dir)
        .env_remove("REDTEAM_BUGS")
        .output()
        .expect("run fuzz");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // `  finding-NNNN  SEVERITY effect hits hit(s)  kind` lines (numbered as their files).
    let kinds: Vec<(String, String, u64, String)> = text
        .lines()
        .filter(|l| l.starts_with("  finding-") && l.contains(" hit(s)  "))
        .map(|l| {
            let (head, kind) = l.split_once(" hit(s)  ").unwrap();
            let mut w = head.split_whitespace().skip(1);
            let severity = w.next().unwrap().to_lowercase();
            let effect = w.next().unwrap().to_owned();
            let hits: u64 = w.next().unwrap().parse().unwrap();
            (severity, effect, hits, kind.to_owned())
        })
        .collect();
    assert!(!kinds.is_empty(), "{text}");
    let unique: BTreeSet<&str> = kinds.iter().map(|k| k.3.as_str()).collect();
    assert_eq!(unique.len(), kinds.len(), "one finding per kind:\n{text}");
    let hits: u64 = kinds.iter().map(|k| k.2).sum();
    assert!(
        hits > kinds.len() as u64,
        "repeats counted as hits:\n{text}"
    );
    for (severity, effect, _, kind) in &kinds {
        if kind.contains("/ implementation refused /") && !kind.contains("reference ok") {
            assert!(
                severity == "medium" || severity == "low",
                "another code rated {severity}: {kind}"
            );
        }
        if kind.contains("/ implementation accepted /")
            && kind.contains("reference invalid_signature")
        {
            assert_eq!(
                (severity.as_str(), effect.as_str()),
                ("critical", "forgery"),
                "{kind}"
            );
        }
    }
    let written = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    assert_eq!(written, kinds.len(), "one file per finding kind");
    let _ = std::fs::remove_dir_all(&dir);
}
