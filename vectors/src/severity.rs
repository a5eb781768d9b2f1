//! The severity model of `spec/severity.md`: what a failing case's implementation did (its
//! [`Direction`]), what that lets an attacker do (its effect and [`Severity`]), and which root
//! cause it belongs to (its finding key).
//!
//! The tables of `spec/severity.md` are data, `spec/data/severity.json` (the only source, from
//! which the Markdown tables are generated): effects with their severities, the ordered rules
//! over requirement ids, the flags that decide before the rules, the output members and the
//! denials. This module reads them ([`parse`], [`model`]) and applies them ([`Model::assess`]); it does not
//! group cases (the harness's `findings` module does) and does not judge them (that is
//! [`crate::judge`]).

use serde::Serialize;
use serde_json::Value;

use crate::format::{Expectation, Expected, Severity, Stake};
use crate::judge::FailureKind;
use crate::operations::Grants;

/// `spec/severity.md`, embedded (the model's prose; its tables are generated from
/// [`SEVERITY_DATA`]).
pub const SEVERITY_MD: &str = include_str!("../spec/severity.md");

/// `spec/data/severity.json`, embedded: the single source of the model's tables.
pub const SEVERITY_DATA: &str = include_str!("../spec/data/severity.json");

/// What the implementation did, from the judge's failure kind or the runner's error kind
/// (`spec/severity.md` §1).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Succeeded, or granted more, where a refusal was required.
    Granted,
    /// Refused, or granted less, where a success was required.
    Refused,
    /// The verdict is right; the output differs otherwise.
    WrongOutput,
    /// Refused with a code outside the expected code's family.
    WrongCode,
    /// Refused with another code of the expected code's family.
    OtherCode,
    /// The implementation died on the input.
    Crash,
    /// No answer within the deadline.
    Hang,
    /// An answer that cannot be judged.
    Errored,
}

impl Direction {
    /// The name used in reports and in `spec/severity.md`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Granted => "granted",
            Self::Refused => "refused",
            Self::WrongOutput => "wrong-output",
            Self::WrongCode => "wrong-code",
            Self::OtherCode => "other-code",
            Self::Crash => "crash",
            Self::Hang => "hang",
            Self::Errored => "errored",
        }
    }
}

/// One cell of a rule's or flag's effect columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// `—`: the direction's default (a flag: leave it to the rules).
    Default,
    /// `(rule)`: a flag keys the finding, the rules give the effect.
    Rule,
    /// An effect name of the effects table.
    Effect(String),
}

impl Cell {
    /// The cell of a data entry: `null` is the default, `"(rule)"` defers to the rules.
    fn from_data(cell: Option<&str>) -> Self {
        match cell {
            None => Self::Default,
            Some("(rule)") => Self::Rule,
            Some(name) => Self::Effect(name.to_owned()),
        }
    }

    /// The cell as the Markdown table shows it.
    fn markdown(&self) -> String {
        match self {
            Self::Default => "—".to_owned(),
            Self::Rule => "(rule)".to_owned(),
            Self::Effect(name) => name.clone(),
        }
    }
}

/// A row of the effects table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectRow {
    /// Effect name (`forgery`).
    pub name: String,
    /// Its severity.
    pub severity: Severity,
    /// What it means.
    pub meaning: String,
}

/// A row of the rules table (first match wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRow {
    /// Rule name (`root-signature`), the finding key's first part.
    pub name: String,
    /// Requirement-id patterns; a trailing `*` is a prefix.
    pub patterns: Vec<String>,
    /// Effect of a granted failure.
    pub granted: Cell,
    /// Effect of a refused failure.
    pub refused: Cell,
    /// Effect of a wrong output.
    pub wrong_output: Cell,
    /// What is broken, in one line.
    pub title: String,
    /// How to fix it.
    pub fix: String,
}

impl RuleRow {
    /// True when one of the patterns matches `requirement`.
    pub fn matches(&self, requirement: &str) -> bool {
        self.patterns.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => requirement.starts_with(prefix),
            None => requirement == p,
        })
    }
}

/// A row of the flags table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagRow {
    /// The flag.
    pub flag: String,
    /// Effect of a granted failure.
    pub granted: Cell,
    /// Effect of a refused failure.
    pub refused: Cell,
    /// Effect of a wrong output.
    pub wrong_output: Cell,
    /// How to fix it (none when the rules' hint applies).
    pub fix: Option<String>,
}

/// How an output member grants more (`spec/severity.md` §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum More {
    /// A list with an element the expected list lacks.
    Superset,
    /// A larger number.
    Greater,
    /// A smaller number.
    Smaller,
    /// Any other value.
    Differs,
}

/// A row of the outputs table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputRow {
    /// The operation.
    pub op: String,
    /// Dot-path of the member in the output.
    pub member: String,
    /// When a value grants more.
    pub more: More,
    /// Effect of an output that grants more.
    pub granted: String,
    /// What is broken.
    pub title: String,
    /// How to fix it.
    pub fix: String,
}

/// The parsed model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// Effects, in table order.
    pub effects: Vec<EffectRow>,
    /// Rules, in match order.
    pub rules: Vec<RuleRow>,
    /// Flags.
    pub flags: Vec<FlagRow>,
    /// Output members that decide a wrong output.
    pub outputs: Vec<OutputRow>,
    /// §10.1 denial codes and the effect of accepting where they are required.
    pub denials: Vec<(String, String)>,
    /// The broken-adapter rule: one finding for an adapter that fails every request.
    pub adapter: AdapterRow,
}

/// The finding key of a broken adapter ([`Model::broken_adapter`]): every format and the exit
/// code know it.
pub const BROKEN_ADAPTER_KEY: &str = "errored adapter-exits-on-every-request/adapter-error";

/// The broken-adapter rule (`severity.json#adapter`): when it applies, its effect, and the
/// title (`{cause}` is the first failed request's cause) and fix of its one finding.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdapterRow {
    /// When the rule applies.
    pub when: String,
    /// The effect of its finding.
    pub effect: String,
    /// What is broken; `{cause}` is replaced by the cause.
    pub title: String,
    /// How to fix it.
    pub fix: String,
}

/// The facts about one failing case the model reads (built only by
/// [`crate::outcome::assess`], the one entry into the model).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Failure<'a> {
    /// The operation.
    pub op: &'a str,
    /// The case's flags.
    pub flags: &'a [String],
    /// The case's requirement ids.
    pub requirements: &'a [String],
    /// What the implementation did.
    pub direction: Direction,
    /// For a wrong code: the first code the expectation allows (the reference's reading).
    pub expected_code: Option<&'a str>,
    /// For another code of the family: the family.
    pub family: Option<&'a str>,
    /// For an errored case: the runner's error kind.
    pub error_kind: Option<&'a str>,
    /// The case's expectation.
    pub expectation: Option<&'a Expectation>,
    /// The output the implementation answered, if it succeeded.
    pub actual_output: Option<&'a Value>,
    /// The case's stated stake (issue 36): the effect of each direction. A corpus case always
    /// has one; only inputs no case states (fuzzer mutations, the MCP suite's own cases) are
    /// graded by the rules alone.
    pub stake: Option<&'a Stake>,
}

/// The model's verdict on one failing case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assessment {
    /// What the implementation did.
    pub direction: Direction,
    /// The effect name.
    pub effect: String,
    /// The effect's severity.
    pub severity: Severity,
    /// The finding key: one root cause (`spec/severity.md` §3).
    pub key: String,
    /// What is broken, in one line.
    pub title: String,
    /// How to fix it.
    pub fix: String,
    /// For a case keyed by a flag or output member that gives the same effect as the case's
    /// rule: the rule's finding key. Where the same run has a finding under that key, the case
    /// joins it, with [`Assessment::hint`] (`spec/severity.md` §3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub joins: Option<String>,
    /// The flag's or output member's fix, shown in the rule's finding it joins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<Hint>,
}

/// A flag's or output member's fix inside a rule's finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Hint {
    /// The flag (`ExpiryBoundary`) or output member (`dct.verify scope.maxChainDepth`).
    pub from: String,
    /// Its fix.
    pub fix: String,
}

impl Hint {
    /// The hint of `from`, none when it has no fix.
    fn new(from: &str, fix: &str) -> Option<Self> {
        (!fix.is_empty()).then(|| Self {
            from: from.to_owned(),
            fix: fix.to_owned(),
        })
    }
}

/// `spec/data/severity.json` (schema: `spec/data/README.md`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelData {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    effects: Vec<EffectData>,
    rules: Vec<RuleData>,
    outputs: Vec<OutputData>,
    denials: Vec<DenialData>,
    adapter: AdapterData,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AdapterData {
    when: String,
    effect: String,
    title: String,
    fix: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct EffectData {
    name: String,
    severity: String,
    meaning: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RuleData {
    name: String,
    requirements: Vec<String>,
    granted: Option<String>,
    refused: Option<String>,
    wrong_output: Option<String>,
    title: String,
    fix: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct OutputData {
    op: String,
    member: String,
    more_when: String,
    granted: String,
    title: String,
    fix: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DenialData {
    code: String,
    granted: String,
}

impl More {
    fn parse(m: &str) -> Option<Self> {
        match m {
            "superset" => Some(Self::Superset),
            "greater" => Some(Self::Greater),
            "smaller" => Some(Self::Smaller),
            "differs" => Some(Self::Differs),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Superset => "superset",
            Self::Greater => "greater",
            Self::Smaller => "smaller",
            Self::Differs => "differs",
        }
    }
}

/// Reads a `severity.json` text, with the flags' effects of the embedded `flags.json`
/// ([`parse_with_flags`]).
pub fn parse(text: &str) -> (Model, Vec<String>) {
    parse_with_flags(text, crate::flags::INDEX_DATA)
}

/// Reads a `severity.json` text and the flags' effect columns of a `flags.json` text (one
/// record per flag: its effects are in its row there); entries that do not read, unknown effect
/// names and duplicate names are returned as errors, one line each.
pub fn parse_with_flags(text: &str, flags: &str) -> (Model, Vec<String>) {
    let mut model = Model::default();
    let data: ModelData = match serde_json::from_str(text) {
        Ok(d) => d,
        Err(e) => return (model, vec![format!("severity.json: {e}")]),
    };
    let (flag_rows, mut errors) = crate::flags::index_from_json(flags);
    for e in data.effects {
        match Severity::parse(&e.severity) {
            Some(severity) => model.effects.push(EffectRow {
                name: e.name,
                severity,
                meaning: e.meaning,
            }),
            None => errors.push(format!(
                "effect {:?}: bad severity {:?}",
                e.name, e.severity
            )),
        }
    }
    for r in data.rules {
        model.rules.push(RuleRow {
            name: r.name,
            patterns: r.requirements,
            granted: Cell::from_data(r.granted.as_deref()),
            refused: Cell::from_data(r.refused.as_deref()),
            wrong_output: Cell::from_data(r.wrong_output.as_deref()),
            title: r.title,
            fix: r.fix,
        });
    }
    for f in flag_rows {
        model.flags.push(FlagRow {
            flag: f.flag,
            granted: Cell::from_data(f.granted.as_deref()),
            refused: Cell::from_data(f.refused.as_deref()),
            wrong_output: Cell::from_data(f.wrong_output.as_deref()),
            fix: f.fix,
        });
    }
    for o in data.outputs {
        match More::parse(&o.more_when) {
            Some(more) => model.outputs.push(OutputRow {
                op: o.op,
                member: o.member,
                more,
                granted: o.granted,
                title: o.title,
                fix: o.fix,
            }),
            None => errors.push(format!(
                "outputs {} {}: bad 'more when' {:?}",
                o.op, o.member, o.more_when
            )),
        }
    }
    for d in data.denials {
        model.denials.push((d.code, d.granted));
    }
    model.adapter = AdapterRow {
        when: data.adapter.when,
        effect: data.adapter.effect,
        title: data.adapter.title,
        fix: data.adapter.fix,
    };
    errors.extend(model.problems());
    (model, errors)
}

/// The six tables of `spec/severity.md` as Markdown, with their block names:
/// `effects`, `rules`, `flags`, `outputs`, `denials`, `adapter`.
pub fn markdown_tables(model: &Model) -> Vec<(&'static str, String)> {
    use crate::spec_tables::table;
    let effects: Vec<Vec<String>> = model
        .effects
        .iter()
        .map(|e| {
            vec![
                e.name.clone(),
                e.severity.as_str().to_owned(),
                e.meaning.clone(),
            ]
        })
        .collect();
    let rules: Vec<Vec<String>> = model
        .rules
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.patterns.join(", "),
                r.granted.markdown(),
                r.refused.markdown(),
                r.wrong_output.markdown(),
                r.title.clone(),
                r.fix.clone(),
            ]
        })
        .collect();
    let flags: Vec<Vec<String>> = model
        .flags
        .iter()
        .map(|f| {
            vec![
                f.flag.clone(),
                f.granted.markdown(),
                f.refused.markdown(),
                f.wrong_output.markdown(),
                f.fix.clone().unwrap_or_else(|| "—".to_owned()),
            ]
        })
        .collect();
    let outputs: Vec<Vec<String>> = model
        .outputs
        .iter()
        .map(|o| {
            vec![
                o.op.clone(),
                o.member.clone(),
                o.more.as_str().to_owned(),
                o.granted.clone(),
                o.title.clone(),
                o.fix.clone(),
            ]
        })
        .collect();
    let denials: Vec<Vec<String>> = model
        .denials
        .iter()
        .map(|(code, granted)| vec![code.clone(), granted.clone()])
        .collect();
    vec![
        (
            "effects",
            table(&["effect", "severity", "meaning"], &effects),
        ),
        (
            "rules",
            table(
                &[
                    "rule",
                    "requirements",
                    "granted",
                    "refused",
                    "wrong-output",
                    "title",
                    "fix",
                ],
                &rules,
            ),
        ),
        (
            "flags",
            table(
                &["flag", "granted", "refused", "wrong-output", "fix"],
                &flags,
            ),
        ),
        (
            "outputs",
            table(
                &["op", "member", "more when", "granted", "title", "fix"],
                &outputs,
            ),
        ),
        ("denials", table(&["code", "granted"], &denials)),
        (
            "adapter",
            table(
                &["when", "effect", "key", "title", "fix"],
                &[vec![
                    model.adapter.when.clone(),
                    model.adapter.effect.clone(),
                    format!("`{BROKEN_ADAPTER_KEY}`"),
                    model.adapter.title.clone(),
                    model.adapter.fix.clone(),
                ]],
            ),
        ),
    ]
}

/// The model of the embedded `spec/data/severity.json` (read once).
pub fn model() -> &'static Model {
    static MODEL: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
    MODEL.get_or_init(|| parse(SEVERITY_DATA).0)
}

/// The effect every direction falls back to (`spec/severity.md` §1–§3).
fn default_effect(direction: Direction) -> &'static str {
    match direction {
        Direction::Granted => "lenient-input",
        Direction::Refused => "valid-input-refused",
        Direction::WrongOutput => "wrong-output",
        Direction::WrongCode => "wrong-code-family",
        Direction::OtherCode => "same-family-code",
        Direction::Crash | Direction::Hang => "crash-or-hang",
        Direction::Errored => "adapter-error",
    }
}

impl Model {
    /// The broken-adapter rule (`spec/severity.md` §7a): a crash or errored answer of an
    /// adapter that failed every request is one adapter-error finding, its cause first — its
    /// crashes and garbage say nothing about the implementation's handling of untrusted input.
    /// The rule's key replaces the case's, and no flag's or member's hint joins it.
    pub fn broken_adapter(&self, a: Assessment, cause: &str) -> Assessment {
        Assessment {
            effect: self.adapter.effect.clone(),
            severity: self.severity_of(&self.adapter.effect),
            key: BROKEN_ADAPTER_KEY.to_owned(),
            title: self.adapter.title.replace("{cause}", cause),
            fix: self.adapter.fix.clone(),
            joins: None,
            hint: None,
            ..a
        }
    }

    /// The effect named `name`.
    pub fn effect(&self, name: &str) -> Option<&EffectRow> {
        self.effects.iter().find(|e| e.name == name)
    }

    /// The rank of effect `name` within its severity: its row in section 2's table (forgery
    /// first); a name the table lacks ranks last.
    pub fn effect_rank(&self, name: &str) -> usize {
        self.effects
            .iter()
            .position(|e| e.name == name)
            .unwrap_or(usize::MAX)
    }

    /// The severity of effect `name` (`low` for a name the table lacks, which
    /// [`Model::problems`] reports).
    pub fn severity_of(&self, name: &str) -> Severity {
        self.effect(name).map_or(Severity::Low, |e| e.severity)
    }

    /// The first rule matching one of `requirements`.
    pub fn rule_for(&self, requirements: &[String]) -> Option<&RuleRow> {
        self.rules
            .iter()
            .find(|r| requirements.iter().any(|q| r.matches(q)))
    }

    /// The row of `flag`.
    pub fn flag(&self, flag: &str) -> Option<&FlagRow> {
        self.flags.iter().find(|f| f.flag == flag)
    }

    /// Inconsistencies: effect names no table defines, duplicate names.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.effect(&self.adapter.effect).is_none() {
            out.push(format!("adapter: unknown effect {:?}", self.adapter.effect));
        }
        let known = |cell: &Cell| match cell {
            Cell::Effect(name) => self.effect(name).is_some(),
            Cell::Default | Cell::Rule => true,
        };
        for r in &self.rules {
            for cell in [&r.granted, &r.refused, &r.wrong_output] {
                if !known(cell) || *cell == Cell::Rule {
                    out.push(format!("rule {}: bad effect cell {cell:?}", r.name));
                }
            }
        }
        for f in &self.flags {
            for cell in [&f.granted, &f.refused, &f.wrong_output] {
                if !known(cell) {
                    out.push(format!("flag {}: unknown effect {cell:?}", f.flag));
                }
            }
        }
        for o in &self.outputs {
            if self.effect(&o.granted).is_none() {
                out.push(format!(
                    "output {} {}: unknown effect {}",
                    o.op, o.member, o.granted
                ));
            }
        }
        for (code, effect) in &self.denials {
            if self.effect(effect).is_none() {
                out.push(format!("denial {code}: unknown effect {effect}"));
            }
        }
        // Rules may share a name (one root cause, several requirement patterns), but no rule
        // name may be a flag's or an effect's.
        let mut rule_names: Vec<&str> = self.rules.iter().map(|r| r.name.as_str()).collect();
        rule_names.dedup();
        let mut names: Vec<&str> = rule_names;
        names.extend(self.flags.iter().map(|f| f.flag.as_str()));
        names.extend(self.effects.iter().map(|e| e.name.as_str()));
        names.sort_unstable();
        for pair in names.windows(2) {
            if pair[0] == pair[1] {
                out.push(format!("duplicate name {}", pair[0]));
            }
        }
        out
    }

    /// The output row and direction deciding a wrong output of `op` (§6): the first member of
    /// the table whose value differs from every allowed valid output in the same direction.
    pub fn output_member(
        &self,
        op: &str,
        expectation: &Expectation,
        actual: &Value,
    ) -> Option<(&OutputRow, bool)> {
        let expected: Vec<Value> = expectation
            .outcomes()
            .into_iter()
            .filter_map(|o| match o {
                Expected::Valid { output } => Some(output),
                Expected::Invalid { .. } => None,
            })
            .collect();
        if expected.is_empty() {
            return None;
        }
        self.outputs.iter().filter(|o| o.op == op).find_map(|o| {
            let verdicts: Vec<Option<bool>> = expected
                .iter()
                .map(|e| {
                    compare_member(o.more, pointer(e, &o.member)?, pointer(actual, &o.member)?)
                })
                .collect();
            if verdicts.iter().all(|v| *v == Some(true)) {
                Some((o, true))
            } else if verdicts.iter().all(|v| *v == Some(false)) {
                Some((o, false))
            } else {
                None
            }
        })
    }

    /// The effect of accepting where every allowed outcome is one of `expectation`'s denials
    /// (§7): the least severe of them, `None` when one has no entry (e.g. `malformed_token`).
    fn denial_floor(&self, expectation: Option<&Expectation>) -> Option<&str> {
        let outcomes = expectation?.outcomes();
        let mut floor: Option<&str> = None;
        for o in &outcomes {
            let Expected::Invalid { code, .. } = o else {
                return None;
            };
            let effect = self
                .denials
                .iter()
                .find(|(c, _)| c == code)
                .map(|(_, e)| e.as_str())?;
            if floor.is_none_or(|f| self.severity_of(effect) < self.severity_of(f)) {
                floor = Some(effect);
            }
        }
        floor
    }

    /// Severity, effect and finding key of one failing case (`spec/severity.md` §3–§8): the
    /// rules name the finding (its key, title and fix); the case's stated stake, where it has
    /// one, gives the effect of its direction, which no rule, flag or output member lowers.
    pub(crate) fn assess(&self, f: &Failure<'_>) -> Assessment {
        let a = self.assess_by_rules(f);
        match f.stake {
            Some(stake) => self.stated(f.direction, f.requirements, a, stake),
            None => a,
        }
    }

    /// The stake the rules alone give a case (each direction's effect, `spec/severity.md`
    /// §4–§7): how the first statement of every case's stake was written (issue 36), and the
    /// stake of a fuzzer's finding file, whose input no case states.
    pub fn rule_stake(
        &self,
        op: &str,
        flags: &[String],
        requirements: &[String],
        expectation: &Expectation,
    ) -> Stake {
        let effect = |direction: Direction| {
            self.assess_by_rules(&Failure {
                op,
                flags,
                requirements,
                direction,
                expected_code: None,
                family: None,
                error_kind: None,
                expectation: Some(expectation),
                actual_output: None,
                stake: None,
            })
            .effect
        };
        Stake {
            granted: effect(Direction::Granted),
            refused: effect(Direction::Refused),
            wrong_output: effect(Direction::WrongOutput),
            crash_or_hang: effect(Direction::Hang),
        }
    }

    /// `a` with the effect the stake states for `direction` (`spec/severity.md` §8). A wrong
    /// output that an output member turned into a grant or refusal keeps the member's effect
    /// when it is more severe. Where the stated effect differs from the rules', the finding is
    /// keyed and titled by it, and joins no rule's finding.
    fn stated(
        &self,
        direction: Direction,
        requirements: &[String],
        a: Assessment,
        stake: &Stake,
    ) -> Assessment {
        let stated = match direction {
            Direction::Granted => &stake.granted,
            Direction::Refused => &stake.refused,
            Direction::WrongOutput => &stake.wrong_output,
            Direction::Crash | Direction::Hang => &stake.crash_or_hang,
            Direction::WrongCode | Direction::OtherCode | Direction::Errored => return a,
        };
        let effect = if direction == Direction::WrongOutput
            && a.direction != Direction::WrongOutput
            && self.severity_of(&a.effect) > self.severity_of(stated)
        {
            a.effect.clone()
        } else {
            stated.clone()
        };
        let decider = a.key.rsplit_once('/').map_or(a.key.as_str(), |(d, _)| d);
        let cell_of = |r: &RuleRow| match a.direction {
            Direction::Granted => r.granted.clone(),
            Direction::Refused => r.refused.clone(),
            _ => r.wrong_output.clone(),
        };
        let gives = |r: &&RuleRow| cell_of(r) == Cell::Effect(effect.clone());
        // The rules' own effect stands where the deciding row gives it (or a flag or output
        // member decided); an effect the §7 floor raised a parsing rule to is named like a
        // stated one.
        let decider_rows: Vec<&RuleRow> = self.rules.iter().filter(|r| r.name == decider).collect();
        if effect == a.effect && (decider_rows.is_empty() || decider_rows.iter().any(gives)) {
            return a;
        }
        // One root cause per effect: the first rule matching one of the case's requirements
        // that gives the stated effect for this direction names the finding (a timestamp
        // parser that lets an expired token through is the expiry defect), the deciding row's
        // fix shown as a hint; for a critical effect without one, the first rule of the table
        // that gives it; else the deciding row keys it with the stated effect.
        let rule = self
            .rules
            .iter()
            .filter(|r| requirements.iter().any(|q| r.matches(q)))
            .find(gives)
            .or_else(|| {
                (self.severity_of(&effect) == Severity::Critical)
                    .then(|| self.rules.iter().find(gives))
                    .flatten()
            });
        let meaning = self.effect(&effect).map_or("", |e| e.meaning.as_str());
        match rule {
            Some(r) if r.name != decider => Assessment {
                severity: self.severity_of(&effect),
                key: format!("{}/{effect}", r.name),
                title: if a.direction == Direction::Granted {
                    r.title.clone()
                } else {
                    format!("{meaning} ({})", r.name)
                },
                fix: r.fix.clone(),
                hint: Hint::new(decider, &a.fix),
                effect,
                joins: None,
                ..a
            },
            _ => Assessment {
                severity: self.severity_of(&effect),
                key: format!("{decider}/{effect}"),
                title: format!("{meaning} ({})", flag_words(decider)),
                effect,
                joins: None,
                hint: None,
                ..a
            },
        }
    }

    /// [`Model::assess`] by the rules alone (`spec/severity.md` §3–§7).
    fn assess_by_rules(&self, f: &Failure<'_>) -> Assessment {
        let make =
            |direction: Direction, decider: &str, effect: String, title: String, fix: String| {
                Assessment {
                    direction,
                    severity: self.severity_of(&effect),
                    key: format!("{decider}/{effect}"),
                    effect,
                    title,
                    fix,
                    joins: None,
                    hint: None,
                }
            };
        let rule = self.rule_for(f.requirements);
        // The effect `rule` gives a direction (its default where the cell is `—`).
        let effect_of = |rule: Option<&RuleRow>, direction: Direction| -> String {
            let cell = rule.map(|r| match direction {
                Direction::Granted => &r.granted,
                Direction::Refused => &r.refused,
                _ => &r.wrong_output,
            });
            match cell {
                Some(Cell::Effect(name)) => name.clone(),
                _ => default_effect(direction).to_owned(),
            }
        };
        let rule_effect = |direction: Direction| effect_of(rule, direction);
        // §4 and §7: on an operation answering §10.1's denials (its catalogue row's `denial`),
        // accepting what they deny is at least a bypass of that denial, unless the deciding row
        // judged the effect high or critical itself.
        let floor = |direction: Direction, effect: String| -> String {
            let denial_op = crate::operations::facts(f.op).is_some_and(|o| o.denial);
            match (direction, self.denial_floor(f.expectation)) {
                (Direction::Granted, Some(d))
                    if denial_op
                        && self.severity_of(&effect) <= Severity::Medium
                        && self.severity_of(d) > self.severity_of(&effect) =>
                {
                    d.to_owned()
                }
                _ => effect,
            }
        };
        // §4: the finding of `rule`.
        let by_rule = |rule: Option<&RuleRow>, direction: Direction| -> Assessment {
            let name = rule.map_or("unclassified", |r| r.name.as_str());
            let effect = floor(direction, effect_of(rule, direction));
            let title = rule.map_or_else(
                || "no rule of spec/severity.md matches these requirements".to_owned(),
                |r| r.title.clone(),
            );
            let title = if direction == Direction::Granted {
                title
            } else {
                let meaning = self.effect(&effect).map_or("", |e| e.meaning.as_str());
                format!("{meaning} ({name})")
            };
            let fix = rule.map(|r| r.fix.clone()).unwrap_or_default();
            make(direction, name, effect, title, fix)
        };
        // §3: a case keyed by a flag or output member joins, where the run has it, the finding
        // of the first rule matching one of its requirements that gives the same effect.
        let joining = |a: Assessment, from: &str, fix: &str| -> Assessment {
            let theirs = self
                .rules
                .iter()
                .filter(|r| f.requirements.iter().any(|q| r.matches(q)))
                .map(|r| by_rule(Some(r), a.direction))
                .find(|theirs| theirs.effect == a.effect);
            match theirs {
                Some(theirs) => Assessment {
                    joins: Some(theirs.key),
                    hint: Hint::new(from, fix),
                    ..a
                },
                None => a,
            }
        };
        // §6: a wrong output in a member that grants more (or less).
        if f.direction == Direction::WrongOutput {
            if let (Some(expectation), Some(actual)) = (f.expectation, f.actual_output) {
                if let Some((row, more)) = self.output_member(f.op, expectation, actual) {
                    let decider = format!("{} {}", row.op, row.member);
                    let (direction, effect, title) = if more {
                        (Direction::Granted, row.granted.clone(), row.title.clone())
                    } else {
                        let effect = default_effect(Direction::Refused);
                        let meaning = self.effect(effect).map_or("", |e| e.meaning.as_str());
                        (
                            Direction::Refused,
                            effect.to_owned(),
                            format!("{meaning} (`{}` grants less than required)", row.member),
                        )
                    };
                    let a = make(direction, &decider, effect, title, row.fix.clone());
                    return joining(a, &decider, &row.fix);
                }
            }
        }
        match f.direction {
            Direction::Granted | Direction::Refused | Direction::WrongOutput => {
                // §5: the most severe deciding flag, then the first; else §4: the first rule.
                let mut decided: Option<(&FlagRow, String, bool)> = None;
                for row in f.flags.iter().filter_map(|name| self.flag(name)) {
                    let cell = match f.direction {
                        Direction::Granted => &row.granted,
                        Direction::Refused => &row.refused,
                        _ => &row.wrong_output,
                    };
                    let (effect, own) = match cell {
                        Cell::Default => continue,
                        Cell::Rule => (rule_effect(f.direction), true),
                        Cell::Effect(name) => (name.clone(), false),
                    };
                    if decided
                        .as_ref()
                        .is_none_or(|(_, e, _)| self.severity_of(&effect) > self.severity_of(e))
                    {
                        decided = Some((row, effect, own));
                    }
                }
                if let Some((row, effect, own)) = decided {
                    let fix = match &row.fix {
                        Some(fix) => fix.clone(),
                        None => rule.map(|r| r.fix.clone()).unwrap_or_default(),
                    };
                    let effect = floor(f.direction, effect);
                    let meaning = self
                        .effect(&effect)
                        .map_or_else(String::new, |e| e.meaning.clone());
                    let a = make(
                        f.direction,
                        &row.flag,
                        effect,
                        format!("{meaning} ({})", flag_words(&row.flag)),
                        fix,
                    );
                    // A `(rule)` flag keys its own finding whatever the rule's.
                    return if own {
                        a
                    } else {
                        joining(a, &row.flag, row.fix.as_deref().unwrap_or_default())
                    };
                }
                by_rule(rule, f.direction)
            }
            Direction::WrongCode => {
                // The first allowed code (the reference's reading): an acceptable caller-error
                // code next to it does not make another root cause.
                let expected = f.expected_code.unwrap_or("?");
                make(
                    f.direction,
                    &format!("code {expected}"),
                    default_effect(f.direction).to_owned(),
                    format!("answers another denial where `{expected}` is required"),
                    "Run the spec's steps in order and answer the denial of the first one that \
                     fails, with the code spec/error-codes.md names for it."
                        .to_owned(),
                )
            }
            Direction::OtherCode => {
                let family = f.family.unwrap_or("?");
                make(
                    f.direction,
                    &format!("family {family}"),
                    default_effect(f.direction).to_owned(),
                    format!("refuses with another code of the `{family}` family"),
                    "Optional: use the exact code of spec/error-codes.md (any code of the family \
                     is a correct refusal)."
                        .to_owned(),
                )
            }
            Direction::Crash | Direction::Hang => make(
                f.direction,
                &format!("{} {}", f.direction.as_str(), f.op),
                default_effect(f.direction).to_owned(),
                format!(
                    "{} on `{}` input",
                    if f.direction == Direction::Crash {
                        "crashes"
                    } else {
                        "hangs (no answer within the deadline)"
                    },
                    f.op
                ),
                "Treat every input as untrusted: bound sizes, depth and work (linear-time \
                 matching), catch every exception and answer with an error code."
                    .to_owned(),
            ),
            Direction::Errored => {
                let kind = f.error_kind.unwrap_or("errored");
                make(
                    f.direction,
                    &format!("errored {kind}"),
                    default_effect(f.direction).to_owned(),
                    format!("answers that cannot be judged ({kind})"),
                    "Answer every request with exactly one reply of spec/adapter-protocol.md; \
                     `skipped` for what the implementation does not support."
                        .to_owned(),
                )
            }
        }
    }
}

/// The value at dot-path `path` of `v`.
fn pointer<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

/// `Some(true)` when `actual` grants more than `expected` under `more`, `Some(false)` when
/// less, `None` when equal or incomparable.
fn compare_member(more: More, expected: &Value, actual: &Value) -> Option<bool> {
    // Equal as the judge compares (`2` and `2.0` are one number): neither more nor less.
    if crate::judge::json_equal(expected, actual) {
        return None;
    }
    match more {
        More::Superset => {
            let (e, a) = (expected.as_array()?, actual.as_array()?);
            let extra = a.iter().any(|x| !e.contains(x));
            let missing = e.iter().any(|x| !a.contains(x));
            match (extra, missing) {
                (true, false) => Some(true),
                (false, true) => Some(false),
                _ => None,
            }
        }
        More::Greater | More::Smaller => {
            let (e, a) = (expected.as_f64()?, actual.as_f64()?);
            let greater = a > e;
            Some(if more == More::Greater {
                greater
            } else {
                !greater
            })
        }
        More::Differs => Some(true),
    }
}

/// How an output compares with an expected one on the axis of authority: `Some(true)` when it
/// grants more, `Some(false)` when it grants less, `None` when neither (or both). What an
/// operation's output grants is its catalogue row's `grants` (`spec/data/operations.json`),
/// one of a few named comparisons.
fn grants_more(op: &str, expected: &Value, actual: &Value) -> Option<bool> {
    // More and less at once, or neither, is no direction.
    let direction = |more: bool, less: bool| match (more, less) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    };
    match crate::operations::facts(op)?.grants.as_ref()? {
        Grants::Verdict { member } => match (expected.get(member), actual.get(member)) {
            (Some(Value::Bool(false)), Some(Value::Bool(true))) => Some(true),
            (Some(Value::Bool(true)), Some(Value::Bool(false))) => Some(false),
            _ => None,
        },
        Grants::Decision {
            member,
            allow,
            deny,
            ..
        } => {
            let allows = |v: &Value| {
                let value = v.get(member).and_then(Value::as_str)?;
                if allow.iter().any(|a| a == value) {
                    Some(true)
                } else if deny.iter().any(|d| d == value) {
                    Some(false)
                } else {
                    None
                }
            };
            match (allows(expected), allows(actual)) {
                (Some(false), Some(true)) => Some(true),
                (Some(true), Some(false)) => Some(false),
                _ => None,
            }
        }
        Grants::Each { member, granting } => {
            let (Some(want), Some(got)) = (
                expected.get(member).and_then(Value::as_array),
                actual.get(member).and_then(Value::as_array),
            ) else {
                return None;
            };
            let (grants, refuses) = (Value::Bool(*granting), Value::Bool(!*granting));
            let pairs = || want.iter().zip(got);
            direction(
                pairs().any(|(w, g)| *w == refuses && *g == grants),
                pairs().any(|(w, g)| *w == grants && *g == refuses),
            )
        }
        Grants::Names { member, name } => {
            let names = |v: &Value| -> Option<Vec<String>> {
                v.get(member)?
                    .as_array()?
                    .iter()
                    .map(|t| {
                        t.get(name)
                            .and_then(Value::as_str)
                            .or_else(|| t.as_str())
                            .map(str::to_owned)
                    })
                    .collect()
            };
            let (want, got) = (names(expected)?, names(actual)?);
            direction(
                got.iter().any(|n| !want.contains(n)),
                want.iter().any(|n| !got.contains(n)),
            )
        }
        Grants::Counts { member, count } => {
            let counts = |v: &Value| -> Vec<usize> {
                v.get(member)
                    .and_then(Value::as_array)
                    .map(|entries| {
                        entries
                            .iter()
                            .map(|e| e.get(count).and_then(Value::as_array).map_or(0, Vec::len))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (want, got) = (counts(expected), counts(actual));
            direction(
                want.iter().zip(&got).any(|(w, g)| g > w),
                want.iter().zip(&got).any(|(w, g)| g < w),
            )
        }
    }
}

/// A flag's name in words for a finding's title (`ScopeWidening` → `scope widening`): titles
/// are read by people, flag names by tools (issue 46).
pub fn flag_words(flag: &str) -> String {
    let mut out = String::with_capacity(flag.len() + 4);
    for (i, c) in flag.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push(' ');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The direction of a judged failure (`spec/severity.md` §1). An output mismatch is `granted`
/// or `refused` when its output grants more or less than every allowed valid output, else
/// `wrong-output`.
pub fn direction_of(
    op: &str,
    kind: FailureKind,
    expectation: &Expectation,
    actual_output: Option<&Value>,
) -> Direction {
    match kind {
        FailureKind::AcceptedInvalid => Direction::Granted,
        FailureKind::RejectedValid => Direction::Refused,
        // Another denial where `valid` is also allowed refuses what may be valid.
        FailureKind::WrongCode
            if expectation
                .outcomes()
                .iter()
                .any(|o| matches!(o, Expected::Valid { .. })) =>
        {
            Direction::Refused
        }
        FailureKind::WrongCode => Direction::WrongCode,
        FailureKind::NoAnswer => Direction::Errored,
        FailureKind::OutputMismatch => {
            let Some(actual) = actual_output else {
                return Direction::WrongOutput;
            };
            let verdicts: Vec<Option<bool>> = expectation
                .outcomes()
                .iter()
                .filter_map(|o| match o {
                    Expected::Valid { output } => Some(grants_more(op, output, actual)),
                    Expected::Invalid { .. } => None,
                })
                .collect();
            if !verdicts.is_empty() && verdicts.iter().all(|v| *v == Some(true)) {
                Direction::Granted
            } else if !verdicts.is_empty() && verdicts.iter().all(|v| *v == Some(false)) {
                Direction::Refused
            } else {
                Direction::WrongOutput
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §7's floor is the least severe of the denials an expectation allows: with one denial
    /// made medium, accepting either of two denials stays medium, not the other's critical.
    #[test]
    fn the_denial_floor_is_the_least_severe_allowed_denial() {
        let data = SEVERITY_DATA.replacen(
            r#"{"code": "expired", "granted": "expiry-bypass"}"#,
            r#"{"code": "expired", "granted": "lenient-input"}"#,
            1,
        );
        assert_ne!(data, SEVERITY_DATA);
        let (m, errors) = parse(&data);
        assert!(errors.is_empty(), "{errors:#?}");
        let either = Expectation::Acceptable {
            outcomes: vec![
                Expected::Invalid {
                    code: "revoked".to_owned(),
                    stage: None,
                },
                Expected::Invalid {
                    code: "expired".to_owned(),
                    stage: None,
                },
            ],
            decision: "D1".to_owned(),
        };
        let reqs = vec!["DCT-VERIFY-1-MALFORMED".to_owned()];
        let granted = |e: &Expectation| {
            m.assess(&Failure {
                op: "dct.verify",
                flags: &[],
                requirements: &reqs,
                direction: Direction::Granted,
                expected_code: None,
                family: None,
                error_kind: None,
                expectation: Some(e),
                actual_output: None,
                stake: None,
            })
        };
        let ruled = granted(&Expectation::Invalid {
            code: "malformed_token".to_owned(),
            stage: None,
        });
        assert!(
            m.severity_of(&ruled.effect) <= Severity::Medium,
            "{ruled:?}"
        );
        assert_eq!(granted(&either).effect, ruled.effect);
        // Accepting a revoked token alone is at least its bypass.
        let revoked = Expectation::Invalid {
            code: "revoked".to_owned(),
            stage: None,
        };
        assert_eq!(granted(&revoked).effect, "revocation-bypass");
    }

    #[test]
    fn spec_tables_severity_md_is_generated_from_the_data() {
        let (model, errors) = parse(SEVERITY_DATA);
        assert!(errors.is_empty(), "{errors:#?}");
        let tables = markdown_tables(&model);
        let names: Vec<&str> = tables.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            ["effects", "rules", "flags", "outputs", "denials", "adapter"]
        );
        // Each table has its header, separator and one row per entry.
        assert_eq!(tables[0].1.lines().count(), 2 + model.effects.len());
        assert_eq!(tables[1].1.lines().count(), 2 + model.rules.len());
        let drift: Vec<String> = tables
            .into_iter()
            .filter_map(|(name, table)| {
                // A flag's effects are in its one record, `flags.json`.
                let source = if name == "flags" {
                    "flags.json#effects".to_owned()
                } else {
                    format!("severity.json#{name}")
                };
                crate::spec_tables::in_step("severity.md", &source, &table).err()
            })
            .collect();
        assert!(drift.is_empty(), "{}", drift.join("\n"));
        assert!(
            !parse("{}").1.is_empty(),
            "a file without the tables is reported"
        );
    }
}
