//! The fault catalogue's switches (`spec/data/faults.json`): one named implementation mistake
//! per switch, so that the corpus can be run against "the reference with exactly this bug" and
//! the fault's fingerprint computed (`delegateos_vectors::faults`).
//!
//! Without the feature `faults` — every build a user runs, and every build of the harness's
//! `run` — [`on`] is the constant `false` and the compiler removes every switch: the
//! algorithms behave, and read, as the spec. With the feature, at most one fault is on: the
//! one a thread chose with [`with`], else the one named by the environment variable
//! `DELEGATEOS_FAULT` (read once; how `reference-adapter` is made to play an implementation
//! with one bug, for the diagnosis tests).
//!
//! A switch is written where the mistake would be made, as `faults::on("id")`, guarding the
//! wrong behaviour; its id is the catalogue's. A switch the catalogue does not name is never
//! on; a catalogue fault whose switch is missing has an empty fingerprint, which the
//! fingerprint test refuses.

/// True when the fault `id` is on (always false without the feature `faults`).
#[cfg(not(feature = "faults"))]
#[inline(always)]
pub fn on(_id: &str) -> bool {
    false
}

#[cfg(feature = "faults")]
mod switch {
    use std::cell::RefCell;
    use std::sync::OnceLock;

    thread_local! {
        static ACTIVE: RefCell<Option<String>> = const { RefCell::new(None) };
    }

    fn from_env() -> Option<&'static str> {
        static ENV: OnceLock<Option<String>> = OnceLock::new();
        ENV.get_or_init(|| {
            std::env::var("DELEGATEOS_FAULT")
                .ok()
                .filter(|v| !v.is_empty())
        })
        .as_deref()
    }

    pub fn on(id: &str) -> bool {
        ACTIVE.with(|a| match a.borrow().as_deref() {
            Some(active) => active == id,
            None => from_env() == Some(id),
        })
    }

    pub fn with<R>(id: &str, f: impl FnOnce() -> R) -> R {
        struct Reset(Option<String>);
        impl Drop for Reset {
            fn drop(&mut self) {
                let previous = self.0.take();
                ACTIVE.with(|a| *a.borrow_mut() = previous);
            }
        }
        let previous = ACTIVE.with(|a| a.borrow_mut().replace(id.to_owned()));
        let _reset = Reset(previous);
        f()
    }
}

/// True when the fault `id` is on: the thread's fault (see [`with`]), else `DELEGATEOS_FAULT`.
#[cfg(feature = "faults")]
pub fn on(id: &str) -> bool {
    switch::on(id)
}

/// Runs `f` with the fault `id` on in this thread (and no other fault), restoring the previous
/// state afterwards, even if `f` panics.
#[cfg(feature = "faults")]
pub fn with<R>(id: &str, f: impl FnOnce() -> R) -> R {
    switch::with(id, f)
}

/// True when the fault `id` is off: the guard `check && faults::off(id)` reads "the check, unless
/// this mistake is switched on" (written without `!`, so a mutant of the guard is a mutant of
/// the check, not of the switch).
pub fn off(id: &str) -> bool {
    !on(id)
}

/// The session the stateful mistakes keep their state for: a number that changes when a new
/// session starts ([`new_session`]). An implementation's process is one session; the
/// fingerprint test starts one per stateful group and one per independent case, as `run`
/// starts a fresh process for each stateful group and promises an independent case no state
/// from another. Always 0 without the feature `faults`.
pub fn session() -> u64 {
    #[cfg(feature = "faults")]
    {
        SESSION.with(std::cell::Cell::get)
    }
    #[cfg(not(feature = "faults"))]
    {
        0
    }
}

/// Starts a new session on this thread: every stateful mistake's state is forgotten.
pub fn new_session() {
    #[cfg(feature = "faults")]
    SESSION.with(|s| s.set(s.get().wrapping_add(1)));
}

#[cfg(feature = "faults")]
thread_local! {
    static SESSION: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// State a stateful mistake keeps for the current [`session`] of this thread: `T::default()`
/// again whenever the session has changed.
#[derive(Debug)]
pub struct SessionState<T> {
    session: u64,
    state: T,
}

impl<T: Default> Default for SessionState<T> {
    fn default() -> Self {
        Self {
            session: session(),
            state: T::default(),
        }
    }
}

impl<T: Default> SessionState<T> {
    /// The state, forgotten first if a new session has started.
    pub fn current(&mut self) -> &mut T {
        let now = session();
        if self.session != now {
            self.session = now;
            self.state = T::default();
        }
        &mut self.state
    }
}

type Memo = std::collections::HashMap<String, Result<serde_json::Value, (String, String)>>;

thread_local! {
    static VERIFY_MEMO: std::cell::RefCell<SessionState<Memo>> =
        std::cell::RefCell::default();
    static ALL_REVOCATIONS: std::cell::RefCell<SessionState<Vec<serde_json::Value>>> =
        std::cell::RefCell::default();
    static SCHEMAS_BY_ID: std::cell::RefCell<SessionState<std::collections::HashMap<String, serde_json::Value>>> =
        std::cell::RefCell::default();
    static FIRST_REGEX: std::cell::RefCell<SessionState<Option<(String, String)>>> =
        std::cell::RefCell::default();
}

/// `dct.verify`'s answer where `verify.memo-by-token` is on: the answer remembered for this
/// token text in this session (whatever the context it was computed for), else `compute`'s,
/// remembered. `compute` otherwise.
pub fn memo_by_token(
    token: &serde_json::Value,
    compute: impl FnOnce() -> Result<serde_json::Value, (String, String)>,
) -> Result<serde_json::Value, (String, String)> {
    if !on("verify.memo-by-token") {
        return compute();
    }
    let key = token.to_string();
    if let Some(hit) = VERIFY_MEMO.with(|m| m.borrow_mut().current().get(&key).cloned()) {
        return hit;
    }
    let answer = compute();
    VERIFY_MEMO.with(|m| m.borrow_mut().current().insert(key, answer.clone()));
    answer
}

/// The revocation entries a context's list is built from where `revocation.list-accumulates`
/// is on: every entry any context of this session gave, this one's added; none otherwise.
pub fn accumulated_revocations(items: &[serde_json::Value]) -> Option<Vec<serde_json::Value>> {
    if !on("revocation.list-accumulates") {
        return None;
    }
    Some(ALL_REVOCATIONS.with(|all| {
        let mut all = all.borrow_mut();
        let all = all.current();
        all.extend(items.iter().cloned());
        all.clone()
    }))
}

/// The schema a `json_schema` check validates with, where a mistake keeps schemas by `$id`
/// for the session: `Err` with ajv's message for a second schema under a seen `$id`
/// (`checks.schema-id-registered-twice`, one validator instance whose `compile` registers every
/// `$id`), the first schema seen under that `$id` (`checks.schema-cached-by-id`); none
/// otherwise, or when it has no string `$id`.
pub fn schema_by_id(schema: &serde_json::Value) -> Option<Result<serde_json::Value, String>> {
    let twice = on("checks.schema-id-registered-twice");
    let cached = on("checks.schema-cached-by-id");
    let id = schema.get("$id").and_then(serde_json::Value::as_str);
    let (Some(id), true) = (id, twice || cached) else {
        return None;
    };
    Some(SCHEMAS_BY_ID.with(|m| {
        let mut m = m.borrow_mut();
        let m = m.current();
        match m.get(id) {
            Some(first) if cached => Ok(first.clone()),
            Some(_) => Err(format!("schema with key or id \"{id}\" already exists")),
            None => {
                m.insert(id.to_owned(), schema.clone());
                Ok(schema.clone())
            }
        }
    }))
}

/// The pattern and flags a `regex_match` check compiles where `checks.regex-cached-by-name` is
/// on: the first ones seen in this session (a cache keyed by the check's name); none
/// otherwise.
pub fn regex_by_name(pattern: &str, flags: &str) -> Option<(String, String)> {
    if !on("checks.regex-cached-by-name") {
        return None;
    }
    Some(FIRST_REGEX.with(|r| {
        r.borrow_mut()
            .current()
            .get_or_insert_with(|| (pattern.to_owned(), flags.to_owned()))
            .clone()
    }))
}

/// One step of a segment-wise glob DP where `**` matches one or more segments (the spec: zero
/// or more): `next[j]` is true when `row[k]` is for some `k < j`.
pub fn double_star_one_or_more(row: &[bool], next: &mut [bool]) {
    let mut any = false;
    for (n, r) in next.iter_mut().zip(row) {
        *n = any;
        any |= *r;
    }
}

// The mistakes' own computations, called only where a switch is on. They live here, not in
// the algorithms, so that the algorithms hold no code that is dead in a user's build (and
// cargo-mutants, which skips this file, finds nothing in them that no input reaches).

/// Which blocks step 2 checks, as `(skip, take)` over the authority and `attenuations`
/// blocks: all of them, unless a mistake checks only the authority or only the last block.
pub fn revocation_blocks(attenuations: usize) -> (usize, usize) {
    if on("verify.2.authority-block-only") {
        (0, 1)
    } else if on("verify.2.last-block-only") {
        (attenuations, 1)
    } else {
        (0, usize::MAX)
    }
}

/// JSON text with every non-finite number outside strings — the literals `NaN`, `Infinity`,
/// `-Infinity` (Python's `json.loads`) and a number beyond the double range such as `1e400`
/// (`float('inf')`) — replaced by `null`, the nearest value the reference's JSON can hold.
pub fn non_finite_as_null(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut in_string = false;
    while let Some(c) = rest.chars().next() {
        if in_string {
            let n = if c == '\\' {
                1 + rest[1..].chars().next().map_or(0, char::len_utf8)
            } else {
                c.len_utf8()
            };
            in_string = c != '"';
            out.push_str(&rest[..n]);
            rest = &rest[n..];
            continue;
        }
        if c == '"' {
            in_string = true;
            out.push(c);
            rest = &rest[1..];
            continue;
        }
        if let Some(lit) = ["NaN", "Infinity", "-Infinity"]
            .into_iter()
            .find(|l| rest.starts_with(l))
        {
            out.push_str("null");
            rest = &rest[lit.len()..];
            continue;
        }
        if c == '-' || c.is_ascii_digit() {
            let n = rest
                .find(|x: char| !(x.is_ascii_digit() || "+-.eE".contains(x)))
                .unwrap_or(rest.len());
            let number = &rest[..n];
            if number.parse::<f64>().is_ok_and(f64::is_infinite) {
                out.push_str("null");
            } else {
                out.push_str(number);
            }
            rest = &rest[n..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The zero of every block of ten Unicode decimal digits (general category Nd, Unicode 15)
/// other than ASCII's: what Python's `\d` matches and `int()` reads.
const UNICODE_DIGIT_ZEROS: &[u32] = &[
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6,
    0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50,
    0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
    0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
];

/// A timestamp's text as a lenient reader reads it, where a fault of the catalogue is on
/// (`None` otherwise, or when the reading is the text itself): one trailing newline dropped
/// (`timestamp.trailing-newline-accepted`, a regular expression anchored with `$`), or every
/// Unicode decimal digit read as its ASCII digit (`timestamp.unicode-digits`, `\d` and
/// `int()`).
pub fn timestamp_as_read(text: &str) -> Option<String> {
    if on("timestamp.trailing-newline-accepted") {
        return text.strip_suffix('\n').map(str::to_owned);
    }
    if on("timestamp.iso-parser") {
        return iso_parser_read(text);
    }
    if on("timestamp.strptime") {
        return Some(strptime_read(&ascii_digits(text)).unwrap_or_default());
    }
    if on("timestamp.unicode-digits") && !text.is_ascii() {
        return Some(ascii_digits(text));
    }
    None
}

/// Every Unicode decimal digit of `text` as its ASCII digit.
fn ascii_digits(text: &str) -> String {
    let ascii = |c: char| {
        let u = u32::from(c);
        UNICODE_DIGIT_ZEROS
            .iter()
            .find(|z| (**z..**z + 10).contains(&u))
            .and_then(|z| char::from_digit(u - z, 10))
            .unwrap_or(c)
    };
    text.chars().map(ascii).collect()
}

/// Splits a leading run of 1..=`max` ASCII digits off `s`.
fn lead_digits(s: &str, max: usize) -> Option<(&str, &str)> {
    let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
    (n > 0).then(|| s.split_at(n))
}

/// A UTC offset `±HH[:]MM[[:]SS]` (or `Z`) as the profile writes it, hours and minutes
/// carried into range as a time delta does (`+00:60` is `+01:00`) where `carry`, seconds
/// dropped; `None` when it is none, has minutes above 59 without `carry`, or is a whole day or
/// more.
fn offset_as_profile(rest: &str, carry: bool) -> Option<String> {
    if rest == "Z" {
        return Some("Z".into());
    }
    let sign = rest.chars().next().filter(|c| *c == '+' || *c == '-')?;
    let digits: String = rest[1..].chars().filter(|c| *c != ':').collect();
    if !digits.bytes().all(|b| b.is_ascii_digit()) || !matches!(digits.len(), 4 | 6) {
        return None;
    }
    let (h, m) = (
        digits[0..2].parse::<u32>().ok()?,
        digits[2..4].parse::<u32>().ok()?,
    );
    if m > 59 && !carry {
        return None;
    }
    let minutes = h * 60 + m;
    (minutes < 24 * 60).then(|| format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60))
}

/// A timestamp as Python 3.11's `datetime.fromisoformat` reads it, written back in the
/// profile (`timestamp.iso-parser`): any one character between date and time, a `.` with no
/// digits, more than nine fraction digits (truncated), an offset with seconds or minutes
/// carried over, and no offset at all (naive, taken as UTC) are accepted. `None` when the text
/// is not of that shape (the profile's parser then refuses it).
fn iso_parser_read(text: &str) -> Option<String> {
    let date = text.get(0..10)?;
    let sep = text[10..].chars().next()?;
    let rest = &text[10 + sep.len_utf8()..];
    let time = rest.get(0..8)?;
    let mut rest = &rest[8..];
    let mut fraction = String::new();
    if let Some(r) = rest.strip_prefix('.') {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        if n > 0 {
            fraction = format!(".{}", &r[..n.min(9)]);
        }
        rest = &r[n..];
    }
    let offset = if rest.is_empty() {
        "Z".to_owned()
    } else {
        offset_as_profile(rest, true)?
    };
    Some(format!("{date}T{time}{fraction}{offset}"))
}

/// A timestamp as `datetime.strptime(text, "%Y-%m-%dT%H:%M:%S[.%f]%z")` reads it, written back
/// in the profile (`timestamp.strptime`): fields of one or two digits, one to six fraction
/// digits only (seven or more are refused), an offset `Z`, `±HHMM`, `±HH:MM` or with seconds.
/// `None` when strptime refuses the text.
fn strptime_read(text: &str) -> Option<String> {
    let (year, r) = text.split_at_checked(4)?;
    if !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut fields = vec![year.parse::<u32>().ok()?];
    let mut r = r;
    for sep in ['-', '-', 'T', ':', ':'] {
        let (n, rest) = lead_digits(r.strip_prefix(sep)?, 2)?;
        fields.push(n.parse().ok()?);
        r = rest;
    }
    let mut fraction = String::new();
    if let Some(f) = r.strip_prefix('.') {
        let (digits, rest) = lead_digits(f, 6)?;
        fraction = format!(".{digits}");
        r = rest;
    }
    let offset = offset_as_profile(r, false)?;
    let [y, mo, d, h, mi, s] = fields[..] else {
        return None;
    };
    Some(format!(
        "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{fraction}{offset}"
    ))
}

/// True when a signature is verified under its entry's `signer` member rather than the
/// block's signer: for every block, or (`root`) for the authority only.
pub fn signer_member_as_key(root: bool) -> bool {
    on("verify.3.signer-member-as-key") || (root && on("verify.3a.signer-member-as-key"))
}

/// The first 32 bytes of BLAKE2b-512 (Node's `createHash('blake2b512')` cut to length), which
/// differ from BLAKE2b-256: the output length is a parameter of BLAKE2b, not a truncation.
pub fn blake2b512_prefix(bytes: &[u8]) -> [u8; 32] {
    use blake2::Digest;
    let full = blake2::Blake2b512::digest(bytes);
    let mut out = [0u8; 32];
    out.copy_from_slice(&full[..32]);
    out
}

/// `a >= b`, where the spec's comparison is `>` (an off-by-one mistake).
pub fn at_least<T: PartialOrd>(a: T, b: T) -> bool {
    a >= b
}

/// `a > b`, where the spec's comparison is `>=` (an off-by-one mistake).
pub fn greater<T: PartialOrd>(a: T, b: T) -> bool {
    a > b
}

/// A value a falsy test (`if (x)`) reads as "not set": 0, or an empty list.
pub trait Falsy {
    /// True for 0 and for an empty list.
    fn falsy(&self) -> bool;
}

impl Falsy for u64 {
    fn falsy(&self) -> bool {
        *self == 0
    }
}

impl<T> Falsy for &Vec<T> {
    fn falsy(&self) -> bool {
        self.is_empty()
    }
}

/// `value`, or `None` when fault `id` (or the fault that makes every restriction falsy-tested)
/// is on and the value is falsy.
pub fn falsy_as_unset<T: Falsy>(id: &str, value: Option<T>) -> Option<T> {
    match value {
        Some(v) if (on(id) || on("verify.4.falsy-restrictions-inherit")) && v.falsy() => None,
        other => other,
    }
}

/// A pattern matched as a string prefix (the text before its first `*`, without a trailing
/// `/`): `/project/**` matches `/projectX/a`.
pub fn prefix_match(pattern: &str, resource: &str) -> bool {
    let literal = pattern.split('*').next().unwrap_or_default();
    resource.starts_with(literal.trim_end_matches('/'))
}

/// True for the action `*` (read as a wildcard by the mistake).
pub fn is_star(action: &str) -> bool {
    action == "*"
}

/// One step of a segment-wise glob DP where `*` matches any run of segments: `next[j]` is
/// true when `row[k]` is for some `k < j`.
pub fn star_any_run(row: &[bool], next: &mut [bool]) {
    let mut any = false;
    for (n, r) in next.iter_mut().skip(1).zip(row) {
        any |= *r;
        *n = any;
    }
}

/// Case-insensitive name equality (the mistake of `a.toLowerCase() === b.toLowerCase()`).
pub fn same_lowercase(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.to_lowercase()
}

/// The chain depth step 4e subtracts from `maxChainDepth`: the authority's `chainDepth`; 0
/// when the mistake ignores it; at most `maxChainDepth` when the mistake never counts depth
/// (a token already past its depth is not refused).
pub fn counted_depth(chain_depth: u64, max_chain_depth: u64) -> u64 {
    if on("verify.4e.chain-depth-ignored") {
        0
    } else if on("verify.4e.depth-not-counted") {
        chain_depth.min(max_chain_depth)
    } else {
        chain_depth
    }
}

/// Pattern and resource as matched: themselves, or both normalized as POSIX paths (`//`
/// collapsed, `.` and `..` resolved) or as Unicode text (NFC) by the mistakes that "clean"
/// resources first.
pub fn normalized_paths<'a>(
    pattern: &'a str,
    resource: &'a str,
) -> (std::borrow::Cow<'a, str>, std::borrow::Cow<'a, str>) {
    if on("glob.paths-normalized") {
        (
            posix_normalize(pattern).into(),
            posix_normalize(resource).into(),
        )
    } else if on("glob.unicode-normalized") {
        (nfc(pattern).into(), nfc(resource).into())
    } else {
        (pattern.into(), resource.into())
    }
}

/// Unicode NFC (JavaScript's `s.normalize('NFC')`) as far as the reference carries Unicode's
/// tables: a Latin letter followed by one combining mark is composed into the precomposed
/// letter of Latin-1 Supplement or Latin Extended-A, and the canonical singletons OHM SIGN,
/// KELVIN SIGN and ANGSTROM SIGN become the letters they stand for. (The corpus's
/// non-NFC resources are all of these; a full NFC needs the Unicode Character Database.)
fn nfc(s: &str) -> String {
    let mut out: Vec<char> = Vec::with_capacity(s.len());
    for c in s.chars() {
        let c = match c {
            '\u{2126}' => '\u{3a9}',
            '\u{212a}' => 'K',
            '\u{212b}' => '\u{c5}',
            c => c,
        };
        let composed = out.last().and_then(|&base| {
            let table: Vec<char> = NFC_COMPOSITIONS.chars().collect();
            table
                .chunks(3)
                .find(|t| t[0] == base && t[1] == c)
                .map(|t| t[2])
        });
        match (composed, out.last_mut()) {
            (Some(p), Some(last)) => *last = p,
            _ => out.push(c),
        }
    }
    out.into_iter().collect()
}

/// Base letter, combining mark, precomposed letter: Unicode's primary composites in
/// U+00C0..U+017F (generated with Python's `unicodedata`).
const NFC_COMPOSITIONS: &str = "\
    A\u{300}\u{c0}A\u{301}\u{c1}A\u{302}\u{c2}A\u{303}\u{c3}A\u{308}\u{c4}A\u{30a}\u{c5}\
    C\u{327}\u{c7}E\u{300}\u{c8}E\u{301}\u{c9}E\u{302}\u{ca}E\u{308}\u{cb}I\u{300}\u{cc}\
    I\u{301}\u{cd}I\u{302}\u{ce}I\u{308}\u{cf}N\u{303}\u{d1}O\u{300}\u{d2}O\u{301}\u{d3}\
    O\u{302}\u{d4}O\u{303}\u{d5}O\u{308}\u{d6}U\u{300}\u{d9}U\u{301}\u{da}U\u{302}\u{db}\
    U\u{308}\u{dc}Y\u{301}\u{dd}a\u{300}\u{e0}a\u{301}\u{e1}a\u{302}\u{e2}a\u{303}\u{e3}\
    a\u{308}\u{e4}a\u{30a}\u{e5}c\u{327}\u{e7}e\u{300}\u{e8}e\u{301}\u{e9}e\u{302}\u{ea}\
    e\u{308}\u{eb}i\u{300}\u{ec}i\u{301}\u{ed}i\u{302}\u{ee}i\u{308}\u{ef}n\u{303}\u{f1}\
    o\u{300}\u{f2}o\u{301}\u{f3}o\u{302}\u{f4}o\u{303}\u{f5}o\u{308}\u{f6}u\u{300}\u{f9}\
    u\u{301}\u{fa}u\u{302}\u{fb}u\u{308}\u{fc}y\u{301}\u{fd}y\u{308}\u{ff}\
    A\u{304}\u{100}a\u{304}\u{101}A\u{306}\u{102}a\u{306}\u{103}A\u{328}\u{104}\
    a\u{328}\u{105}C\u{301}\u{106}c\u{301}\u{107}C\u{302}\u{108}c\u{302}\u{109}\
    C\u{307}\u{10a}c\u{307}\u{10b}C\u{30c}\u{10c}c\u{30c}\u{10d}D\u{30c}\u{10e}\
    d\u{30c}\u{10f}E\u{304}\u{112}e\u{304}\u{113}E\u{306}\u{114}e\u{306}\u{115}\
    E\u{307}\u{116}e\u{307}\u{117}E\u{328}\u{118}e\u{328}\u{119}E\u{30c}\u{11a}\
    e\u{30c}\u{11b}G\u{302}\u{11c}g\u{302}\u{11d}G\u{306}\u{11e}g\u{306}\u{11f}\
    G\u{307}\u{120}g\u{307}\u{121}G\u{327}\u{122}g\u{327}\u{123}H\u{302}\u{124}\
    h\u{302}\u{125}I\u{303}\u{128}i\u{303}\u{129}I\u{304}\u{12a}i\u{304}\u{12b}\
    I\u{306}\u{12c}i\u{306}\u{12d}I\u{328}\u{12e}i\u{328}\u{12f}I\u{307}\u{130}\
    J\u{302}\u{134}j\u{302}\u{135}K\u{327}\u{136}k\u{327}\u{137}L\u{301}\u{139}\
    l\u{301}\u{13a}L\u{327}\u{13b}l\u{327}\u{13c}L\u{30c}\u{13d}l\u{30c}\u{13e}\
    N\u{301}\u{143}n\u{301}\u{144}N\u{327}\u{145}n\u{327}\u{146}N\u{30c}\u{147}\
    n\u{30c}\u{148}O\u{304}\u{14c}o\u{304}\u{14d}O\u{306}\u{14e}o\u{306}\u{14f}\
    O\u{30b}\u{150}o\u{30b}\u{151}R\u{301}\u{154}r\u{301}\u{155}R\u{327}\u{156}\
    r\u{327}\u{157}R\u{30c}\u{158}r\u{30c}\u{159}S\u{301}\u{15a}s\u{301}\u{15b}\
    S\u{302}\u{15c}s\u{302}\u{15d}S\u{327}\u{15e}s\u{327}\u{15f}S\u{30c}\u{160}\
    s\u{30c}\u{161}T\u{327}\u{162}t\u{327}\u{163}T\u{30c}\u{164}t\u{30c}\u{165}\
    U\u{303}\u{168}u\u{303}\u{169}U\u{304}\u{16a}u\u{304}\u{16b}U\u{306}\u{16c}\
    u\u{306}\u{16d}U\u{30a}\u{16e}u\u{30a}\u{16f}U\u{30b}\u{170}u\u{30b}\u{171}\
    U\u{328}\u{172}u\u{328}\u{173}W\u{302}\u{174}w\u{302}\u{175}Y\u{302}\u{176}\
    y\u{302}\u{177}Y\u{308}\u{178}Z\u{301}\u{179}z\u{301}\u{17a}Z\u{307}\u{17b}\
    z\u{307}\u{17c}Z\u{30c}\u{17d}z\u{30c}\u{17e}";

/// Node's `path.posix.normalize`.
fn posix_normalize(s: &str) -> String {
    if s.is_empty() {
        return ".".to_owned();
    }
    let absolute = s.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in s.split('/') {
        match seg {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            _ => parts.push(seg),
        }
    }
    let mut out = parts.join("/");
    if out.is_empty() && !absolute {
        out.push('.');
    }
    if s.ends_with('/') && !out.is_empty() {
        out.push('/');
    }
    if absolute {
        out.insert(0, '/');
    }
    out
}

/// True when signature `i` of `n` attenuation signatures is skipped: only the last one is
/// checked.
pub fn skips_signature(i: usize, n: usize) -> bool {
    on("verify.3b.last-signature-only") && i + 1 != n
}

/// `matches` as one of the other-matcher mistakes computes it: Python's `fnmatch`
/// (`glob.fnmatch`), `PurePosixPath.match` (`glob.pathlib-match`), or a glob translated to a
/// regular expression as hurried code does — `**` → `.*`, `*` → `[^/]+`, the rest escaped, or
/// not (`glob.regex-unescaped`), or with only the first `**` translated
/// (`glob.regex-first-double-star`). `None` when no such mistake is on; an expression that
/// does not compile matches nothing.
pub fn other_matcher(pattern: &str, resource: &str) -> Option<bool> {
    if on("glob.fnmatch") {
        return Some(fnmatch(pattern, resource));
    }
    if on("glob.pathlib-match") {
        return Some(pathlib_match(pattern, resource));
    }
    let unescaped = on("glob.regex-unescaped");
    let first_only = on("glob.regex-first-double-star");
    if !(unescaped || first_only || on("glob.regex-translation")) {
        return None;
    }
    // `regex::escape` escapes `*` too; undo that so the glob stars are translated.
    let mut src = if unescaped {
        pattern.to_owned()
    } else {
        regex::escape(pattern).replace("\\*", "*")
    };
    const DS: &str = "\u{0}";
    src = if first_only {
        src.replacen("**", DS, 1)
    } else {
        src.replace("**", DS)
    };
    src = src.replace('*', "[^/]+").replace(DS, ".*");
    Some(
        regex::Regex::new(&format!("^(?:{src})$"))
            .map(|r| r.is_match(resource))
            .unwrap_or(false),
    )
}

/// An empty pattern read as `*` (`pattern or "*"`).
pub fn empty_as_star(pattern: &str) -> &str {
    if on("glob.empty-pattern-matches-all") && pattern.is_empty() {
        "*"
    } else {
        pattern
    }
}

/// Node's `Buffer.from(text, "base64url")` (Python's `urlsafe_b64decode` is alike): characters
/// outside the alphabet skipped, `+` and `/` read as `-` and `_`, decoding stopped at `=`,
/// leftover bits ignored. It never fails.
pub fn node_base64(text: &str) -> Vec<u8> {
    let mut bits: u32 = 0;
    let mut n = 0;
    let mut bytes = Vec::new();
    for c in text.chars() {
        let v = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '-' | '+' => 62,
            '_' | '/' => 63,
            '=' => break,
            _ => continue,
        };
        bits = (bits << 6) | v;
        n += 6;
        if n >= 8 {
            n -= 8;
            bytes.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    bytes
}

/// Python's `fnmatch.fnmatchcase(text, pattern)`: `*` any run of characters (`/` included),
/// `?` one character, `[seq]` / `[!seq]` a character class, anything else literal.
fn fnmatch(pattern: &str, text: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let mut src = String::from("^(?s:");
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '*' => src.push_str(".*"),
            '?' => src.push('.'),
            '[' => {
                let mut j = i;
                if chars.get(j) == Some(&'!') {
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    j += 1;
                }
                while chars.get(j).is_some_and(|c| *c != ']') {
                    j += 1;
                }
                if j >= chars.len() {
                    src.push_str("\\[");
                    continue;
                }
                let mut class: String = chars[i..j].iter().collect();
                if let Some(rest) = class.strip_prefix('!') {
                    class = format!("^{rest}");
                }
                src.push('[');
                src.push_str(&class.replace('\\', "\\\\"));
                src.push(']');
                i = j + 1;
            }
            c => src.push_str(&regex::escape(&c.to_string())),
        }
    }
    src.push_str(")$");
    regex::Regex::new(&src).is_ok_and(|r| r.is_match(text))
}

/// The revocation entries of one id that step 2 looks at: all of them, or only the last one
/// (entries kept in a map by id, a later entry replacing an earlier one).
pub fn entries_considered<T>(entries: &[T]) -> &[T] {
    if on("revocation.last-entry-per-id") {
        entries
            .len()
            .checked_sub(1)
            .map_or(entries, |i| &entries[i..])
    } else {
        entries
    }
}

/// Canonical text as the mistake writes it: every non-ASCII character escaped as `\uXXXX`
/// (Python's `json.dumps` with its default `ensure_ascii`).
pub fn ascii_escaped(text: String) -> String {
    if !on("canonical-json.non-ascii-escaped") || text.is_ascii() {
        return text;
    }
    let mut out = String::with_capacity(text.len() * 2);
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

/// Python 3.11's `PurePosixPath(resource).match(pattern)`: both split into parts (empty and `.`
/// parts dropped, a leading `/` or exactly `//` kept as the root); a relative pattern matches
/// the path's last parts, an absolute one the whole path; each part by [`fnmatch`].
fn pathlib_match(pattern: &str, resource: &str) -> bool {
    fn parts(s: &str) -> (&str, Vec<&str>) {
        let root = if s.starts_with("//") && !s.starts_with("///") {
            "//"
        } else if s.starts_with('/') {
            "/"
        } else {
            ""
        };
        let rest = s
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        (root, rest)
    }
    let (p_root, p_parts) = parts(pattern);
    let (r_root, r_parts) = parts(resource);
    if p_parts.is_empty() && p_root.is_empty() {
        return false; // Python raises ValueError("empty pattern")
    }
    if !p_root.is_empty() && (p_root != r_root || p_parts.len() != r_parts.len()) {
        return false;
    }
    let r_len = r_parts.len() + usize::from(!r_root.is_empty());
    if p_parts.len() > r_len {
        return false;
    }
    p_parts
        .iter()
        .rev()
        .zip(r_parts.iter().rev())
        .all(|(p, r)| fnmatch(p, r))
        && (p_parts.len() <= r_parts.len() || fnmatch(p_parts[0], r_root))
}

/// A block's members as a typed decoder sees them: all of them, or (the mistake of a typed
/// decoding that ignores unknown fields, `verify.2.revocation-id-over-typed-block`) only the
/// members the spec names.
pub fn known_members<'a>(
    obj: &'a serde_json::Map<String, serde_json::Value>,
    required: &[&str],
    optional: &[&str],
) -> std::borrow::Cow<'a, serde_json::Map<String, serde_json::Value>> {
    if !on("verify.2.revocation-id-over-typed-block") {
        return std::borrow::Cow::Borrowed(obj);
    }
    let known = obj
        .iter()
        .filter(|(k, _)| required.contains(&k.as_str()) || optional.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect::<serde_json::Map<_, _>>();
    std::borrow::Cow::Owned(known)
}

/// The text of each block of a token as received (what a `RawValue` member holds: the span of
/// `authority`'s value and of each element of `attenuations`, whitespace inside included),
/// authority first; empty unless `verify.2.revocation-id-over-raw-text` is on. `bytes` is
/// JSON the strict parser accepted.
pub fn raw_blocks(bytes: &[u8]) -> Vec<String> {
    if !on("verify.2.revocation-id-over-raw-text") {
        return Vec::new();
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    let b = text.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while b.get(*i).is_some_and(|c| b" \t\n\r".contains(c)) {
            *i += 1;
        }
    };
    fn string(b: &[u8], i: &mut usize) {
        *i += 1;
        while let Some(&c) = b.get(*i) {
            *i += if c == b'\\' { 2 } else { 1 };
            if c == b'"' {
                return;
            }
        }
    }
    fn value(b: &[u8], i: &mut usize) {
        let skip_ws = |i: &mut usize| {
            while b.get(*i).is_some_and(|c| b" \t\n\r".contains(c)) {
                *i += 1;
            }
        };
        match b.get(*i) {
            Some(b'"') => string(b, i),
            Some(&open @ (b'{' | b'[')) => {
                *i += 1;
                skip_ws(i);
                let close = if open == b'{' { b'}' } else { b']' };
                if b.get(*i) == Some(&close) {
                    *i += 1;
                    return;
                }
                loop {
                    skip_ws(i);
                    if open == b'{' {
                        string(b, i);
                        skip_ws(i);
                        *i += 1; // ':'
                        skip_ws(i);
                    }
                    value(b, i);
                    skip_ws(i);
                    let c = b.get(*i).copied();
                    *i += 1;
                    if c != Some(b',') {
                        return;
                    }
                }
            }
            _ => {
                while b.get(*i).is_some_and(|c| !b",}] \t\n\r".contains(c)) {
                    *i += 1;
                }
            }
        }
    }
    let mut authority = String::new();
    let mut attenuations = Vec::new();
    ws(&mut i);
    i += 1; // '{'
    loop {
        ws(&mut i);
        if b.get(i) != Some(&b'"') {
            break;
        }
        let key_start = i;
        string(b, &mut i);
        let key = text.get(key_start..i).unwrap_or_default();
        ws(&mut i);
        i += 1; // ':'
        ws(&mut i);
        if key == "\"attenuations\"" && b.get(i) == Some(&b'[') {
            i += 1;
            ws(&mut i);
            if b.get(i) == Some(&b']') {
                i += 1;
            } else {
                loop {
                    ws(&mut i);
                    let start = i;
                    value(b, &mut i);
                    attenuations.push(text.get(start..i).unwrap_or_default().to_owned());
                    ws(&mut i);
                    let c = b.get(i).copied();
                    i += 1;
                    if c != Some(b',') {
                        break;
                    }
                }
            }
        } else {
            let start = i;
            value(b, &mut i);
            if key == "\"authority\"" {
                authority = text.get(start..i).unwrap_or_default().to_owned();
            }
        }
        ws(&mut i);
        let c = b.get(i).copied();
        i += 1;
        if c != Some(b',') {
            break;
        }
    }
    std::iter::once(authority).chain(attenuations).collect()
}

/// The NaN of a timestamp read by [`date_parse_nanos`]: an instant no timestamp text reaches
/// (`Timestamp::unix_nanos` of a text `Date.parse` cannot read, `timestamp.date-parse`).
pub const DATE_PARSE_NAN: i128 = i128::MIN;

/// False when `a` and `b` are instants of which one is `Date.parse`'s NaN, where
/// `timestamp.date-parse` is on: every comparison with NaN is false, so such a token is neither
/// expired nor extended (true otherwise: the comparison stands).
pub fn ordered(a: i128, b: i128) -> bool {
    !(on("timestamp.date-parse") && (a == DATE_PARSE_NAN || b == DATE_PARSE_NAN))
}

/// JavaScript's `Date.parse` (V8, the local time zone taken as UTC) over the timestamp shapes
/// an implementer meets, in nanoseconds since the epoch cut to whole milliseconds, or
/// [`DATE_PARSE_NAN`]: a year of 4 digits (or `±` and 6), then optionally `-MM` and `-DD`, then
/// optionally a `T`, `t` or space, `HH:MM`, optionally `:SS` and a fraction of any length, and
/// a zone `Z`, `z`, `±HH:MM` or `±HHMM` (none: local time). The day may be any of 1..=31 (a day
/// past the month's end rolls over into the next month); an hour may be 24 only at 24:00:00;
/// seconds stop at 59 (a leap second is NaN); anything else (other digits, surrounding
/// whitespace, a bare number) is NaN.
pub fn date_parse_nanos(text: &str) -> i128 {
    date_parse_ms(text.as_bytes()).map_or(DATE_PARSE_NAN, |ms| i128::from(ms) * 1_000_000)
}

fn date_parse_ms(b: &[u8]) -> Option<i64> {
    let mut i = 0;
    let num = |i: &mut usize, n: usize| -> Option<i64> {
        let d = b.get(*i..*i + n)?;
        if !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *i += n;
        Some(d.iter().fold(0, |v, c| v * 10 + i64::from(c - b'0')))
    };
    let year = match b.first() {
        Some(s @ (b'+' | b'-')) => {
            i = 1;
            let y = num(&mut i, 6)?;
            if *s == b'-' {
                -y
            } else {
                y
            }
        }
        _ => num(&mut i, 4)?,
    };
    let (mut month, mut day) = (1, 1);
    if b.get(i) == Some(&b'-') {
        i += 1;
        month = num(&mut i, 2)?;
        if b.get(i) == Some(&b'-') {
            i += 1;
            day = num(&mut i, 2)?;
        }
    }
    let (mut h, mut mi, mut sec, mut ms, mut offset_min) = (0, 0, 0, 0, 0);
    if i < b.len() {
        if !matches!(b.get(i), Some(b'T' | b't' | b' ')) {
            return None;
        }
        i += 1;
        h = num(&mut i, 2)?;
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        mi = num(&mut i, 2)?;
        if b.get(i) == Some(&b':') {
            i += 1;
            sec = num(&mut i, 2)?;
            if b.get(i) == Some(&b'.') {
                i += 1;
                let start = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    if i - start < 3 {
                        ms = ms * 10 + i64::from(b[i] - b'0');
                    }
                    i += 1;
                }
                match i - start {
                    0 => return None,
                    1 => ms *= 100,
                    2 => ms *= 10,
                    _ => {}
                }
            }
        }
        match b.get(i) {
            None => {}
            Some(b'Z' | b'z') if i + 1 == b.len() => {}
            Some(s @ (b'+' | b'-')) => {
                let sign = if *s == b'-' { -1 } else { 1 };
                i += 1;
                let oh = num(&mut i, 2)?;
                if b.get(i) == Some(&b':') {
                    i += 1;
                }
                let om = num(&mut i, 2)?;
                if i != b.len() || oh > 23 || om > 59 {
                    return None;
                }
                offset_min = sign * (oh * 60 + om);
            }
            _ => return None,
        }
    }
    let midnight = h == 24 && mi == 0 && sec == 0 && ms == 0;
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || (h > 23 && !midnight)
        || mi > 59
        || sec > 59
    {
        return None;
    }
    // Days from 1970-01-01 to the first of the month (Howard Hinnant's days_from_civil), plus
    // the day of the month: a day past the month's end rolls over.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((month + 9) % 12) + 2) / 5;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468 + (day - 1);
    Some(((days * 24 + h) * 60 + mi - offset_min) * 60_000 + sec * 1000 + ms)
}

#[cfg(all(test, feature = "faults"))]
mod tests {
    #[test]
    fn one_fault_at_a_time_and_restored() {
        assert!(!super::on("a"));
        super::with("a", || {
            assert!(super::on("a"));
            assert!(!super::on("b"));
            super::with("b", || assert!(super::on("b") && !super::on("a")));
            assert!(super::on("a"));
        });
        assert!(!super::on("a"));
    }

    #[test]
    fn date_parse_reads_as_v8_does() {
        let ms = |t: &str| super::date_parse_ms(t.as_bytes());
        assert_eq!(ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(ms("2026-01-01T00:00:00Z"), Some(1_767_225_600_000));
        assert_eq!(ms("2026-01-01"), ms("2026-01-01T00:00:00Z"));
        assert_eq!(ms("2026-01-01 00:00:00z"), ms("2026-01-01T00:00:00Z"));
        assert_eq!(ms("2026-01-01T01:00:00+0100"), ms("2026-01-01T00:00Z"));
        assert_eq!(ms("2026-02-29T00:00:00Z"), ms("2026-03-01T00:00:00Z"));
        assert_eq!(
            ms("2026-01-01T00:00:00.123456789Z"),
            Some(1_767_225_600_123)
        );
        assert_eq!(ms("+002026-01-01T00:00:00Z"), Some(1_767_225_600_000));
        for nan in [
            "",
            "never",
            "1772359200",
            "2016-12-31T23:59:60Z",
            "2026-01-32T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-01-01T00:00:00+24:00",
            "2026-01-01T00:00:00Z\n",
            "2026-01-01T00:00:00+00",
            "2026-01-01T00:00:00.Z",
        ] {
            assert_eq!(ms(nan), None, "{nan:?}");
        }
    }
}
