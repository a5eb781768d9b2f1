//! ECMAScript regular expressions evaluated by a linear-time engine (§6.2 `regex_match`, D12).
//!
//! This module owns the translation of an ECMAScript pattern (`new RegExp(pattern, flags)`) into
//! a [`regex_syntax::hir::Hir`] with JavaScript meanings, and its compilation with the `regex`
//! crate under a size limit. It answers one question, "does the pattern match somewhere in the
//! subject" (`RegExp.prototype.test` on a fresh object), which is why capture groups, greedy vs
//! lazy quantifiers and alternative order do not matter: existence of a match is the same under
//! backtracking and automata semantics once backreferences and lookaround are excluded.
//!
//! Supported syntax: literals; `.`; `^` `$` (with `m`: line anchors); `\b` `\B` (ASCII word
//! characters, as in JavaScript); `\d \D \w \W \s \S` (ASCII `\d`/`\w`; the JavaScript `\s`
//! set, which contains U+FEFF and not U+0085); character classes with negation, ranges, `[]`
//! (matches nothing) and `[^]` (matches anything); groups `( )`, `(?: )`, `(?<name> )` (a
//! name may spell characters as `\uXXXX` or `\u{…}`; a name used twice is a syntax error);
//! alternation; quantifiers `* + ? {n} {n,} {n,m}` and their lazy forms; escapes `\n \r \t \v
//! \f \0 \xHH \uHHHH`, surrogate pairs written as two `\u` escapes, `\u{…}` (with `u`), `\cX`.
//! Without `u` the Annex B web-compatibility grammar applies: identity escapes such as `\a`,
//! literal `{`, `}` and `]` where they cannot be a quantifier or class end, legacy octal escapes
//! (`\1` when there is no group 1), `\u{61}` meaning `u` repeated 61 times, and `\c` followed by
//! a non-letter meaning a literal backslash.
//!
//! Unicode property escapes `\p{…}` and `\P{…}` (complement), with `u` only: a
//! `General_Category` value or alias alone (`\p{L}`, `\p{Letter}`, `\p{Lu}`), an ECMAScript
//! binary property (`\p{Alphabetic}`, `\p{ASCII}`, `\p{Any}`, …), or `name=value` with
//! `General_Category`/`gc`, `Script`/`sc`, `Script_Extensions`/`scx` (`\p{Script=Greek}`,
//! `\p{sc=Grek}`). Names are matched exactly as spelt in ECMA-262 (V8 refuses `\p{letter}`);
//! an unknown name or value is a syntax error ([`CheckError::InvalidParams`]). The tables are
//! the `regex` crate's (Unicode 16); V8 uses its ICU's Unicode version, so code points assigned
//! in between may differ. `\p{Changes_When_NFKC_Casefolded}` (`CWKCF`) has no table there
//! and is refused with [`CheckError::UnsupportedPattern`]. `\p{Cs}` matches nothing (no
//! surrogates in a Rust string). Without `u`, `\p` is the identity escape for `p` (Annex B).
//!
//! Refused with [`CheckError::UnsupportedPattern`]: backreferences (`\1` with a group 1,
//! `\k<name>`), lookahead and lookbehind. Pattern syntax errors (what `new RegExp` throws `SyntaxError` for) are
//! [`CheckError::InvalidParams`]. Flags: each of `i`, `m`, `s`, `u` at most once; `g`, `y`, `d`,
//! `v`, unknown or repeated flags are `InvalidParams`. Limits: a pattern longer than
//! [`MAX_PATTERN_UTF16`] UTF-16 code units, a subject longer than [`MAX_SUBJECT_BYTES`] UTF-8
//! bytes, group nesting deeper than 128, or a compiled program above the size limit is
//! [`CheckError::LimitExceeded`].
//!
//! Code units (D12): without `u`, JavaScript matches UTF-16 code units, and so does this
//! module. [`EcmaRegex::is_match`] re-encodes a subject that contains astral characters
//! (U+10000 and above) as one `char` per UTF-16 code unit, a surrogate `D800 + k` becoming the
//! private-use stand-in `U+F0000 + k` (see `SURROGATE_BASE`); the pattern is read as code
//! units the same way. So `.`, `\D`/`\W`/`\S` and negated classes consume one surrogate, an
//! astral character in a class contributes its two surrogates as separate members, a
//! quantifier after an astral literal repeats its low surrogate, `\uD83D` matches the high
//! surrogate (and `\uD83D\uDE00` is two units, joined into one code point only with `u`),
//! class ranges over D800–DFFF cover the stand-ins, and case-insensitive matching never folds
//! a surrogate (so `𐐀` with `i` does not match `𐐨`, as in V8). With `u`, matching is by code
//! point and a lone surrogate escape never matches (a Rust string has no lone surrogates).
//!
//! Known divergences from V8 (vectors for them carry flag `RegexDialect`):
//! - With `m`, `^`/`$` treat `\r` and `\n` as line terminators (CRLF mode) but not U+2028 or
//!   U+2029, and do not match between the `\r` and `\n` of a CRLF pair (V8 does).
//! - With `i`, case-insensitive matching uses Unicode simple case folding. With `u` that is
//!   exactly JavaScript's rule; without `u` JavaScript uses `toUpperCase`, which this module
//!   approximates by never folding U+017F (ſ) and U+212A (Kelvin sign) to ASCII; rarer
//!   differences remain (e.g. `ß`/`ẞ` are equal here, not in V8 without `u`).
//! - With `u` and `i`, JavaScript's `\w` also contains ſ and the Kelvin sign; this module
//!   honours that for `\w`/`\W` but `\b` stays ASCII.

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Look, Repetition};

use super::CheckError;

/// Longest accepted pattern, in UTF-16 code units (JavaScript `.length`).
pub const MAX_PATTERN_UTF16: usize = 1024;
/// Longest accepted subject, in UTF-8 bytes.
pub const MAX_SUBJECT_BYTES: usize = 1 << 20;
/// Deepest accepted group nesting.
const MAX_NEST: usize = 128;
/// Compiled program and lazy-DFA cache limits handed to the `regex` crate.
const SIZE_LIMIT: usize = 2 << 20;

/// ECMAScript `General_Category` values and aliases (ECMA-262 table
/// `table-unicode-general-category-values`), space-separated.
const GC_VALUES: &str = "\
    Cased_Letter LC Close_Punctuation Pe Connector_Punctuation Pc Control Cc cntrl \
    Currency_Symbol Sc Dash_Punctuation Pd Decimal_Number Nd digit Enclosing_Mark Me \
    Final_Punctuation Pf Format Cf Initial_Punctuation Pi Letter L Letter_Number Nl \
    Line_Separator Zl Lowercase_Letter Ll Mark M Combining_Mark Math_Symbol Sm \
    Modifier_Letter Lm Modifier_Symbol Sk Nonspacing_Mark Mn Number N Open_Punctuation Ps \
    Other C Other_Letter Lo Other_Number No Other_Punctuation Po Other_Symbol So \
    Paragraph_Separator Zp Private_Use Co Punctuation P punct Separator Z Space_Separator Zs \
    Spacing_Mark Mc Surrogate Cs Symbol S Titlecase_Letter Lt Unassigned Cn Uppercase_Letter \
    Lu";

/// ECMAScript binary Unicode properties and aliases (ECMA-262 table
/// `table-binary-unicode-properties`), space-separated.
const BINARY_PROPERTIES: &str = "\
    ASCII ASCII_Hex_Digit AHex Alphabetic Alpha Any Assigned Bidi_Control Bidi_C \
    Bidi_Mirrored Bidi_M Case_Ignorable CI Cased Changes_When_Casefolded CWCF \
    Changes_When_Casemapped CWCM Changes_When_Lowercased CWL Changes_When_NFKC_Casefolded \
    CWKCF Changes_When_Titlecased CWT Changes_When_Uppercased CWU Dash \
    Default_Ignorable_Code_Point DI Deprecated Dep Diacritic Dia Emoji Emoji_Component EComp \
    Emoji_Modifier EMod Emoji_Modifier_Base EBase Emoji_Presentation EPres \
    Extended_Pictographic ExtPict Extender Ext Grapheme_Base Gr_Base Grapheme_Extend Gr_Ext \
    Hex_Digit Hex IDS_Binary_Operator IDSB IDS_Trinary_Operator IDST ID_Continue IDC \
    ID_Start IDS Ideographic Ideo Join_Control Join_C Logical_Order_Exception LOE Lowercase \
    Lower Math Noncharacter_Code_Point NChar Pattern_Syntax Pat_Syn Pattern_White_Space \
    Pat_WS Quotation_Mark QMark Radical Regional_Indicator RI Sentence_Terminal STerm \
    Soft_Dotted SD Terminal_Punctuation Term Unified_Ideograph UIdeo Uppercase Upper \
    Variation_Selector VS White_Space space XID_Continue XIDC XID_Start XIDS";

/// ECMAScript `Script` / `Script_Extensions` values (long names and four-letter codes), from
/// the Unicode `PropertyValueAliases` table as ECMA-262 accepts them (not `Katakana_Or_Hiragana`),
/// space-separated.
const SCRIPT_VALUES: &str = "\
    Adlam Adlm Ahom Anatolian_Hieroglyphs Hluw Arabic Arab Armenian Armn Avestan Avst \
    Balinese Bali Bamum Bamu Bassa_Vah Bass Batak Batk Bengali Beng Bhaiksuki Bhks Bopomofo \
    Bopo Brahmi Brah Braille Brai Buginese Bugi Buhid Buhd Canadian_Aboriginal Cans Carian \
    Cari Caucasian_Albanian Aghb Chakma Cakm Cham Cherokee Cher Chorasmian Chrs Common Zyyy \
    Coptic Copt Qaac Cuneiform Xsux Cypriot Cprt Cypro_Minoan Cpmn Cyrillic Cyrl Deseret \
    Dsrt Devanagari Deva Dives_Akuru Diak Dogra Dogr Duployan Dupl Egyptian_Hieroglyphs Egyp \
    Elbasan Elba Elymaic Elym Ethiopic Ethi Garay Gara Georgian Geor Glagolitic Glag Gothic \
    Goth Grantha Gran Greek Grek Gujarati Gujr Gunjala_Gondi Gong Gurmukhi Guru Gurung_Khema \
    Gukh Han Hani Hangul Hang Hanifi_Rohingya Rohg Hanunoo Hano Hatran Hatr Hebrew Hebr \
    Hiragana Hira Imperial_Aramaic Armi Inherited Qaai Zinh Inscriptional_Pahlavi Phli \
    Inscriptional_Parthian Prti Javanese Java Kaithi Kthi Kannada Knda Katakana Kana \
    Khmer Khmr Khojki Khoj Khudawadi Sind Kirat_Rai Krai Lao Laoo Latin Latn Lepcha Lepc \
    Limbu Limb Linear_A Lina Linear_B Linb Lisu Lycian Lyci Lydian Lydi Mahajani Mahj \
    Makasar Maka Malayalam Mlym Mandaic Mand Manichaean Mani Marchen Marc Masaram_Gondi Gonm \
    Medefaidrin Medf Meetei_Mayek Mtei Mende_Kikakui Mend Meroitic_Cursive Merc \
    Meroitic_Hieroglyphs Mero Miao Plrd Modi Mongolian Mong Mro Mroo Multani Mult Myanmar \
    Mymr Nabataean Nbat Nag_Mundari Nagm Nandinagari Nand New_Tai_Lue Talu Newa Nko Nkoo \
    Nushu Nshu Nyiakeng_Puachue_Hmong Hmnp Ogham Ogam Ol_Chiki Olck Ol_Onal Onao \
    Old_Hungarian Hung Old_Italic Ital Old_North_Arabian Narb Old_Permic Perm Old_Persian \
    Xpeo Old_Sogdian Sogo Old_South_Arabian Sarb Old_Turkic Orkh Old_Uyghur Ougr Oriya Orya \
    Osage Osge Osmanya Osma Pahawh_Hmong Hmng Palmyrene Palm Pau_Cin_Hau Pauc Phags_Pa Phag \
    Phoenician Phnx Psalter_Pahlavi Phlp Rejang Rjng Runic Runr Samaritan Samr Saurashtra \
    Saur Sharada Shrd Shavian Shaw Siddham Sidd SignWriting Sgnw Sinhala Sinh Sogdian Sogd \
    Sora_Sompeng Sora Soyombo Soyo Sundanese Sund Sunuwar Sunu Syloti_Nagri Sylo Syriac Syrc \
    Tagalog Tglg Tagbanwa Tagb Tai_Le Tale Tai_Tham Lana Tai_Viet Tavt Takri Takr Tamil Taml \
    Tangsa Tnsa Tangut Tang Telugu Telu Thaana Thaa Thai Tibetan Tibt Tifinagh Tfng Tirhuta \
    Tirh Todhri Todr Toto Tulu_Tigalari Tutg Ugaritic Ugar Unknown Zzzz Vai Vaii Vithkuqi \
    Vith Wancho Wcho Warang_Citi Wara Yezidi Yezi Yi Yiii Zanabazar_Square Zanb \
";

const LONG_S: u32 = 0x017F;

/// Without `u`, a UTF-16 surrogate code unit `D800 + k` is represented by the character
/// `SURROGATE_BASE + k` (U+F0000–U+F07FF, plane-15 private use) in both the re-encoded subject
/// and the translated pattern. No collision is possible: re-encoding splits every astral
/// character (including real U+F0000–U+F07FF) into its two surrogates, so neither the
/// re-encoded subject nor the re-encoded pattern contains a real astral character.
const SURROGATE_BASE: u32 = 0xF0000;
const KELVIN: u32 = 0x212A;

/// The parsed `flags` string of a `regex_match` check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// `i`: case-insensitive.
    pub ignore_case: bool,
    /// `m`: `^` and `$` match at line boundaries.
    pub multiline: bool,
    /// `s`: `.` also matches line terminators.
    pub dot_all: bool,
    /// `u`: Unicode mode (strict syntax, code-point semantics, `\u{…}`).
    pub unicode: bool,
}

impl Flags {
    /// Parses a flags string against the allow-list `i`, `m`, `s`, `u`.
    pub fn parse(flags: &str) -> Result<Flags, CheckError> {
        let mut out = Flags::default();
        for c in flags.chars() {
            let slot = match c {
                'i' => &mut out.ignore_case,
                'm' => &mut out.multiline,
                's' => &mut out.dot_all,
                'u' => &mut out.unicode,
                'g' | 'y' => {
                    return Err(CheckError::InvalidParams(format!(
                        "regex flag '{c}' is stateful and not allowed"
                    )))
                }
                other => {
                    return Err(CheckError::InvalidParams(format!(
                        "unsupported regex flag '{}'",
                        other.escape_default()
                    )))
                }
            };
            if *slot {
                return Err(CheckError::InvalidParams(format!(
                    "duplicate regex flag '{c}'"
                )));
            }
            *slot = true;
        }
        Ok(out)
    }
}

/// A compiled ECMAScript pattern.
#[derive(Debug, Clone)]
pub struct EcmaRegex {
    regex: regex::Regex,
    /// `u` flag: code points; otherwise the subject is matched as UTF-16 code units.
    unicode: bool,
}

impl EcmaRegex {
    /// Parses `pattern` with `flags` (ECMAScript syntax) and compiles it.
    pub fn new(pattern: &str, flags: &str) -> Result<EcmaRegex, CheckError> {
        let flags = Flags::parse(flags)?;
        let units: usize = pattern.chars().map(char::len_utf16).sum();
        if units > MAX_PATTERN_UTF16 {
            return Err(CheckError::LimitExceeded(format!(
                "pattern is {units} UTF-16 code units; the limit is {MAX_PATTERN_UTF16}"
            )));
        }
        let hir = translate(pattern, flags)?;
        let translated = hir.to_string();
        let regex = regex::RegexBuilder::new(&translated)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(SIZE_LIMIT)
            .nest_limit(1024)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(limit) => {
                    CheckError::LimitExceeded(format!("compiled pattern exceeds {limit} bytes"))
                }
                other => CheckError::UnsupportedPattern(format!(
                    "translated pattern rejected by the engine: {other}"
                )),
            })?;
        Ok(EcmaRegex {
            regex,
            unicode: flags.unicode,
        })
    }

    /// `RegExp.prototype.test(subject)` on a fresh object.
    pub fn is_match(&self, subject: &str) -> Result<bool, CheckError> {
        if subject.len() > MAX_SUBJECT_BYTES {
            return Err(CheckError::LimitExceeded(format!(
                "subject is {} bytes; the limit is {MAX_SUBJECT_BYTES}",
                subject.len()
            )));
        }
        if self.unicode || subject.chars().all(|c| u32::from(c) < 0x10000) {
            return Ok(self.regex.is_match(subject));
        }
        Ok(self
            .regex
            .is_match(&code_units(subject).collect::<String>()))
    }
}

/// The UTF-16 code units of `s`, one `char` each: a BMP character stands for itself and a
/// surrogate unit for its stand-in in the `SURROGATE_BASE` range (non-`u` matching).
fn code_units(s: &str) -> impl Iterator<Item = char> + '_ {
    s.encode_utf16().map(|unit| {
        let v = u32::from(unit);
        let v = if (0xD800..=0xDFFF).contains(&v) {
            SURROGATE_BASE + (v - 0xD800)
        } else {
            v
        };
        char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER)
    })
}

/// The stand-in character of a surrogate code unit (`None` for any other value).
fn surrogate_stand_in(unit: u32) -> Option<char> {
    if (0xD800..=0xDFFF).contains(&unit) {
        char::from_u32(SURROGATE_BASE + (unit - 0xD800))
    } else {
        None
    }
}

/// Translates an ECMAScript pattern to HIR with JavaScript meanings. Without `u` the HIR
/// matches the UTF-16 code units of the subject as [`EcmaRegex::is_match`] re-encodes it
/// (surrogates as stand-ins, see `SURROGATE_BASE`), not the subject itself.
pub fn translate(pattern: &str, flags: Flags) -> Result<Hir, CheckError> {
    // Without `u` the pattern, too, is a sequence of UTF-16 code units: an astral literal is
    // two units (a quantifier after it repeats the low one; in a class, each is a member).
    let chars: Vec<char> = if flags.unicode {
        pattern.chars().collect()
    } else {
        code_units(pattern).collect()
    };
    let (group_count, has_named) = prescan(&chars);
    let mut p = Parser {
        chars,
        pos: 0,
        flags,
        group_count,
        has_named,
        depth: 0,
        names: Vec::new(),
        references: Vec::new(),
    };
    let hir = p.disjunction()?;
    if p.pos < p.chars.len() {
        return Err(p.syntax("unmatched ')'"));
    }
    // A backreference is refused only once the whole pattern is known to be one `new RegExp`
    // accepts: a syntax error anywhere, or `\k<name>` naming no group (an early error,
    // ECMA-262 §22.2.1.1), is what JavaScript throws first.
    if let Some(name) = p.references.iter().flatten().find(|n| !p.names.contains(n)) {
        return Err(p.syntax(&format!("no group named {name}")));
    }
    if !p.references.is_empty() {
        return Err(CheckError::UnsupportedPattern(
            "backreferences need a backtracking engine".into(),
        ));
    }
    Ok(hir)
}

/// Counts capturing groups and notes named groups, as the ECMAScript grammar requires before
/// `\N` can be classified as a backreference or a legacy octal escape.
fn prescan(chars: &[char]) -> (u32, bool) {
    let mut count = 0u32;
    let mut named = false;
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                if chars.get(i + 1) != Some(&'?') {
                    count = count.saturating_add(1);
                } else if chars.get(i + 2) == Some(&'<')
                    && !matches!(chars.get(i + 3), Some('=') | Some('!'))
                {
                    count = count.saturating_add(1);
                    named = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (count, named)
}

enum ClassAtom {
    Unit(u32),
    Set(ClassUnicode),
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    flags: Flags,
    group_count: u32,
    has_named: bool,
    depth: usize,
    /// The names of the capture groups seen so far (a name may be used once).
    names: Vec<String>,
    /// The backreferences seen (`\k<name>` with its name, `\N` without): refused after the
    /// parse, when every group name is known.
    references: Vec<Option<String>>,
}

fn is_syntax_char(c: char) -> bool {
    matches!(
        c,
        '^' | '$' | '\\' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '/'
    )
}

fn range_set(ranges: &[(u32, u32)]) -> ClassUnicode {
    let mut set = ClassUnicode::empty();
    for &(lo, hi) in ranges {
        push_units(&mut set, lo, hi);
    }
    set
}

/// Adds the values in `lo..=hi`. The surrogate block D800–DFFF becomes the stand-in range
/// when `units` (non-`u` matching by code unit); with `u` it is skipped, since a Rust subject
/// cannot contain a lone surrogate, so surrogates can never match.
fn push_units_mode(set: &mut ClassUnicode, lo: u32, hi: u32, units: bool) {
    if units && lo <= 0xDFFF && hi >= 0xD800 {
        let a = SURROGATE_BASE + (lo.max(0xD800) - 0xD800);
        let b = SURROGATE_BASE + (hi.min(0xDFFF) - 0xD800);
        if let (Some(a), Some(b)) = (char::from_u32(a), char::from_u32(b)) {
            set.push(ClassUnicodeRange::new(a, b));
        }
    }
    push_units(set, lo, hi);
}

/// Adds the scalar values in `lo..=hi`, skipping the surrogate block.
fn push_units(set: &mut ClassUnicode, lo: u32, hi: u32) {
    let mut add = |a: u32, b: u32| {
        if a <= b {
            if let (Some(a), Some(b)) = (char::from_u32(a), char::from_u32(b)) {
                set.push(ClassUnicodeRange::new(a, b));
            }
        }
    };
    if lo <= 0xD7FF {
        add(lo, hi.min(0xD7FF));
    }
    if hi >= 0xE000 {
        add(lo.max(0xE000), hi.min(0x10FFFF));
    }
}

fn digit_set() -> ClassUnicode {
    range_set(&[(0x30, 0x39)])
}

fn space_set() -> ClassUnicode {
    range_set(&[
        (0x09, 0x0D),
        (0x20, 0x20),
        (0xA0, 0xA0),
        (0x1680, 0x1680),
        (0x2000, 0x200A),
        (0x2028, 0x2029),
        (0x202F, 0x202F),
        (0x205F, 0x205F),
        (0x3000, 0x3000),
        (0xFEFF, 0xFEFF),
    ])
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, off: usize) -> Option<char> {
        self.chars.get(self.pos + off).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn syntax(&self, msg: &str) -> CheckError {
        CheckError::InvalidParams(format!(
            "invalid regular expression (character {}): {msg}",
            self.pos
        ))
    }

    fn word_set(&self) -> ClassUnicode {
        let mut set = range_set(&[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]);
        if self.flags.unicode && self.flags.ignore_case {
            push_units(&mut set, LONG_S, LONG_S);
            push_units(&mut set, KELVIN, KELVIN);
        }
        set
    }

    /// Closes a positive set under case-insensitive equivalence (see the module doc).
    fn fold(&self, set: ClassUnicode) -> Result<ClassUnicode, CheckError> {
        let fold_err = |_| CheckError::UnsupportedPattern("case folding tables unavailable".into());
        if self.flags.unicode {
            let mut set = set;
            set.try_case_fold_simple().map_err(fold_err)?;
            return Ok(set);
        }
        let special = range_set(&[(LONG_S, LONG_S), (KELVIN, KELVIN)]);
        let mut kept = set.clone();
        kept.intersect(&special);
        let mut base = set;
        base.difference(&special);
        base.try_case_fold_simple().map_err(fold_err)?;
        base.difference(&special);
        base.union(&kept);
        Ok(base)
    }

    fn class_hir(&self, set: ClassUnicode, negated: bool) -> Result<Hir, CheckError> {
        let mut set = if self.flags.ignore_case {
            self.fold(set)?
        } else {
            set
        };
        if negated {
            set.negate();
        }
        Ok(Hir::class(Class::Unicode(set)))
    }

    /// The code unit (without `u`) or code point a pattern character stands for: without `u`
    /// a surrogate stand-in (see `SURROGATE_BASE`) is mapped back to its surrogate value. (A
    /// pattern read as code units holds BMP characters and stand-ins only, so every character
    /// from `SURROGATE_BASE` up is a stand-in.)
    fn unit_of(&self, c: char) -> u32 {
        let v = u32::from(c);
        if !self.flags.unicode && v >= SURROGATE_BASE {
            0xD800 + (v - SURROGATE_BASE)
        } else {
            v
        }
    }

    /// Adds the code units (or code points, with `u`) `lo..=hi` to `set`.
    fn push(&self, set: &mut ClassUnicode, lo: u32, hi: u32) {
        push_units_mode(set, lo, hi, !self.flags.unicode);
    }

    fn add_atom(&self, set: &mut ClassUnicode, atom: ClassAtom) {
        match atom {
            ClassAtom::Unit(u) => self.push(set, u, u),
            ClassAtom::Set(s) => set.union(&s),
        }
    }

    fn unit_hir(&self, unit: u32) -> Result<Hir, CheckError> {
        let c = if self.flags.unicode {
            match char::from_u32(unit) {
                Some(c) => c,
                // A lone surrogate with `u`: no Rust string contains one.
                None => return Ok(Hir::fail()),
            }
        } else {
            match surrogate_stand_in(unit).or_else(|| char::from_u32(unit)) {
                Some(c) => c,
                None => return Ok(Hir::fail()),
            }
        };
        if self.flags.ignore_case {
            // Stand-ins are private-use characters: case folding leaves them alone.
            let mut set = ClassUnicode::empty();
            self.push(&mut set, unit, unit);
            self.class_hir(set, false)
        } else {
            let mut buf = [0u8; 4];
            Ok(Hir::literal(c.encode_utf8(&mut buf).as_bytes()))
        }
    }

    fn disjunction(&mut self) -> Result<Hir, CheckError> {
        let mut alts = vec![self.alternative()?];
        while self.eat('|') {
            alts.push(self.alternative()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or_else(Hir::empty)
        } else {
            Hir::alternation(alts)
        })
    }

    fn alternative(&mut self) -> Result<Hir, CheckError> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            terms.push(self.term()?);
        }
        Ok(Hir::concat(terms))
    }

    fn term(&mut self) -> Result<Hir, CheckError> {
        let look = match (self.peek(), self.peek_at(1)) {
            (Some('^'), _) => Some(if self.flags.multiline {
                Look::StartCRLF
            } else {
                Look::Start
            }),
            (Some('$'), _) => Some(if self.flags.multiline {
                Look::EndCRLF
            } else {
                Look::End
            }),
            (Some('\\'), Some('b')) => Some(Look::WordAscii),
            (Some('\\'), Some('B')) => Some(Look::WordAsciiNegate),
            _ => None,
        };
        if let Some(look) = look {
            self.pos += if matches!(look, Look::WordAscii | Look::WordAsciiNegate) {
                2
            } else {
                1
            };
            return Ok(Hir::look(look));
        }
        if self.peek() == Some('(') && self.peek_at(1) == Some('?') {
            let lookaround = match (self.peek_at(2), self.peek_at(3)) {
                (Some('='), _) | (Some('!'), _) => Some("lookahead"),
                (Some('<'), Some('=')) | (Some('<'), Some('!')) => Some("lookbehind"),
                _ => None,
            };
            if let Some(kind) = lookaround {
                return Err(CheckError::UnsupportedPattern(format!(
                    "{kind} assertions need a backtracking engine"
                )));
            }
        }
        let atom = self.atom()?;
        self.quantifier(atom)
    }

    /// Recognises `{n}`, `{n,}` or `{n,m}` at `at`; returns (min, max, index after `}`).
    fn braced(&self, at: usize) -> Option<(u32, Option<u32>, usize)> {
        if self.chars.get(at) != Some(&'{') {
            return None;
        }
        let mut i = at + 1;
        let number = |i: &mut usize| -> Option<u32> {
            let start = *i;
            let mut n: u32 = 0;
            while let Some(d) = self.chars.get(*i).and_then(|c| c.to_digit(10)) {
                n = n.saturating_mul(10).saturating_add(d);
                *i += 1;
            }
            (*i > start).then_some(n)
        };
        let min = number(&mut i)?;
        let max = if self.chars.get(i) == Some(&',') {
            i += 1;
            number(&mut i)
        } else {
            Some(min)
        };
        if self.chars.get(i) != Some(&'}') {
            return None;
        }
        Some((min, max, i + 1))
    }

    fn quantifier(&mut self, atom: Hir) -> Result<Hir, CheckError> {
        let (min, max) = match self.peek() {
            Some('*') => {
                self.pos += 1;
                (0, None)
            }
            Some('+') => {
                self.pos += 1;
                (1, None)
            }
            Some('?') => {
                self.pos += 1;
                (0, Some(1))
            }
            Some('{') => match self.braced(self.pos) {
                Some((min, max, end)) => {
                    self.pos = end;
                    (min, max)
                }
                // Not a quantifier: the `{` is read as the next atom (a literal without `u`,
                // a syntax error with it).
                None => return Ok(atom),
            },
            _ => return Ok(atom),
        };
        // The lazy marker: a lazy quantifier finds a match exactly when the greedy one does
        // (see the module doc), so the repetition is built greedy either way.
        self.eat('?');
        if let Some(max) = max {
            if min > max {
                return Err(self.syntax("numbers out of order in {} quantifier"));
            }
        }
        Ok(Hir::repetition(Repetition {
            min,
            max,
            greedy: true,
            sub: Box::new(atom),
        }))
    }

    fn atom(&mut self) -> Result<Hir, CheckError> {
        let Some(c) = self.peek() else {
            return Err(self.syntax("unexpected end of pattern"));
        };
        match c {
            '.' => {
                self.pos += 1;
                let mut set = if self.flags.dot_all {
                    ClassUnicode::empty()
                } else {
                    range_set(&[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
                };
                set.negate();
                Ok(Hir::class(Class::Unicode(set)))
            }
            '(' => self.group(),
            '[' => self.class(),
            '\\' => self.atom_escape(),
            '*' | '+' | '?' => Err(self.syntax("nothing to repeat")),
            '{' if self.flags.unicode => Err(self.syntax("lone quantifier brackets")),
            '{' if self.braced(self.pos).is_some() => Err(self.syntax("nothing to repeat")),
            '}' | ']' if self.flags.unicode => Err(self.syntax("lone quantifier brackets")),
            _ => {
                self.pos += 1;
                self.unit_hir(self.unit_of(c))
            }
        }
    }

    fn group(&mut self) -> Result<Hir, CheckError> {
        self.pos += 1;
        if self.eat('?') {
            match self.bump() {
                Some(':') => {}
                Some('<') => {
                    let name = self.group_name()?;
                    if self.names.contains(&name) {
                        return Err(self.syntax("duplicate capture group name"));
                    }
                    self.names.push(name);
                }
                _ => return Err(self.syntax("invalid group")),
            }
        }
        self.depth += 1;
        if self.depth > MAX_NEST {
            return Err(CheckError::LimitExceeded(format!(
                "groups nested deeper than {MAX_NEST}"
            )));
        }
        let inner = self.disjunction()?;
        self.depth -= 1;
        if !self.eat(')') {
            return Err(self.syntax("unterminated group"));
        }
        // Captures are irrelevant to `test`, so the group is just its contents.
        Ok(inner)
    }

    /// Parses `name>` after `(?<` or `\k<`.
    fn group_name(&mut self) -> Result<String, CheckError> {
        let mut name = String::new();
        loop {
            match self.name_char() {
                Some('>') if !name.is_empty() => return Ok(name),
                Some(c)
                    if c == '$'
                        || c == '_'
                        || c.is_alphabetic()
                        || (!name.is_empty()
                            && (c.is_alphanumeric() || c == '\u{200C}' || c == '\u{200D}')) =>
                {
                    name.push(c)
                }
                _ => return Err(self.syntax("invalid capture group name")),
            }
        }
    }

    /// The next character of a group name (`RegExpIdentifierName`): a character, or a
    /// `\uXXXX` / `\u{…}` escape (both allowed in any mode). Without `u` the pattern is code
    /// units, and an astral character (allowed by ES2020 in any mode) is re-joined from its two
    /// surrogates, each written literally or as a `\u` escape. A lone surrogate, or `\`
    /// followed by anything else, is `None` (not a name character).
    fn name_char(&mut self) -> Option<char> {
        let hi = self.name_unit()?;
        if (0xD800..=0xDBFF).contains(&hi) {
            let save = self.pos;
            match self.name_unit() {
                Some(lo) if (0xDC00..=0xDFFF).contains(&lo) => {
                    return char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00));
                }
                _ => self.pos = save,
            }
        }
        char::from_u32(hi)
    }

    /// One code unit (or code point) of a group name, escapes decoded (see [`Self::name_char`]).
    fn name_unit(&mut self) -> Option<u32> {
        let c = self.bump()?;
        if c != '\\' {
            return Some(self.unit_of(c));
        }
        if !self.eat('u') {
            return None;
        }
        if !self.eat('{') {
            return self.hex(4);
        }
        self.code_point_in_braces()
    }

    /// The rest of a `\u{…}` escape after its `{`: hex digits (at least one) naming a code
    /// point up to U+10FFFF, then `}`; `None` otherwise.
    fn code_point_in_braces(&mut self) -> Option<u32> {
        let mut v: u32 = 0;
        let mut digits = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
            v = v.saturating_mul(16).saturating_add(d);
            digits += 1;
            self.pos += 1;
        }
        (digits > 0 && self.eat('}') && v <= 0x10_FFFF).then_some(v)
    }

    fn hex(&mut self, digits: usize) -> Option<u32> {
        let mut v = 0u32;
        for k in 0..digits {
            let d = self.peek_at(k)?.to_digit(16)?;
            v = v * 16 + d;
        }
        self.pos += digits;
        Some(v)
    }

    /// Legacy octal escape (Annex B), starting at the current position (a digit 0–7).
    fn legacy_octal(&mut self) -> u32 {
        let first = self.peek().and_then(|c| c.to_digit(8)).unwrap_or(0);
        self.pos += 1;
        let mut v = first;
        let max_more = if first <= 3 { 2 } else { 1 };
        for _ in 0..max_more {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    v = v * 8 + d;
                    self.pos += 1;
                }
                None => break,
            }
        }
        v
    }

    fn atom_escape(&mut self) -> Result<Hir, CheckError> {
        self.pos += 1; // the backslash
        let Some(c) = self.peek() else {
            return Err(self.syntax("\\ at end of pattern"));
        };
        match c {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                self.pos += 1;
                let (set, negated) = self.class_escape(c);
                self.class_hir(set, negated)
            }
            '1'..='9' => {
                let start = self.pos;
                let mut n: u32 = 0;
                while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
                    n = n.saturating_mul(10).saturating_add(d);
                    self.pos += 1;
                }
                if n <= self.group_count {
                    self.references.push(None);
                    return Ok(Hir::empty());
                }
                if self.flags.unicode {
                    return Err(self.syntax("invalid escape"));
                }
                self.pos = start;
                if c == '8' || c == '9' {
                    self.pos += 1;
                    return self.unit_hir(u32::from(c));
                }
                let v = self.legacy_octal();
                self.unit_hir(v)
            }
            'k' if self.flags.unicode || self.has_named => {
                self.pos += 1;
                if !self.eat('<') {
                    return Err(self.syntax("invalid named reference"));
                }
                let name = self.group_name()?;
                self.references.push(Some(name));
                Ok(Hir::empty())
            }
            'p' | 'P' if self.flags.unicode => {
                let set = self.property_escape()?;
                self.class_hir(set, false)
            }
            _ => match self.character_escape(false)? {
                Some(unit) => self.unit_hir(unit),
                None => self.unit_hir(u32::from('\\')),
            },
        }
    }

    /// `\p{…}` / `\P{…}` under `u`, positioned on the `p`/`P`. Returns the set of code points
    /// the escape stands for (already complemented for `\P`, so case folding under `i` applies
    /// to the complement, as in ECMAScript's CharacterClassEscape).
    fn property_escape(&mut self) -> Result<ClassUnicode, CheckError> {
        let complement = self.bump() == Some('P');
        if !self.eat('{') {
            return Err(self.syntax("invalid property name"));
        }
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=')
        {
            self.pos += 1;
        }
        let body: String = self.chars[start..self.pos].iter().collect();
        if !self.eat('}') {
            return Err(self.syntax("invalid property name"));
        }
        let Some(spec) = property_spec(&body) else {
            return Err(self.syntax(&format!("invalid property name {body:?}")));
        };
        let mut set = property_set(&spec)?;
        if complement {
            set.negate();
        }
        Ok(set)
    }

    fn class_escape(&self, c: char) -> (ClassUnicode, bool) {
        match c {
            'd' => (digit_set(), false),
            'D' => (digit_set(), true),
            'w' => (self.word_set(), false),
            'W' => (self.word_set(), true),
            's' => (space_set(), false),
            _ => (space_set(), true),
        }
    }

    /// CharacterEscape after a backslash, positioned on the escape letter. Returns the code
    /// unit or code point, or `None` for Annex B's `\c` + non-letter, where the backslash is a
    /// literal and the `c` is left unconsumed.
    fn character_escape(&mut self, in_class: bool) -> Result<Option<u32>, CheckError> {
        let Some(c) = self.bump() else {
            return Err(self.syntax("\\ at end of pattern"));
        };
        let unit = match c {
            't' => 0x09,
            'n' => 0x0A,
            'v' => 0x0B,
            'f' => 0x0C,
            'r' => 0x0D,
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => 0,
            '0' if self.flags.unicode => return Err(self.syntax("invalid decimal escape")),
            '0' => {
                self.pos -= 1;
                self.legacy_octal()
            }
            'c' => match self.peek() {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.pos += 1;
                    u32::from(l) % 32
                }
                Some(l) if in_class && !self.flags.unicode && (l.is_ascii_digit() || l == '_') => {
                    self.pos += 1;
                    u32::from(l) % 32
                }
                _ if self.flags.unicode => return Err(self.syntax("invalid unicode escape")),
                _ => {
                    self.pos -= 1;
                    return Ok(None);
                }
            },
            'x' => match self.hex(2) {
                Some(v) => v,
                None if self.flags.unicode => return Err(self.syntax("invalid escape")),
                None => u32::from('x'),
            },
            'u' => {
                if let Some(v) = self.hex(4) {
                    // `\uLead\uTrail` is one code point only with `u`; without it each
                    // escape is one code unit.
                    if self.flags.unicode
                        && (0xD800..=0xDBFF).contains(&v)
                        && self.peek() == Some('\\')
                        && self.peek_at(1) == Some('u')
                    {
                        let save = self.pos;
                        self.pos += 2;
                        match self.hex(4) {
                            Some(lo) if (0xDC00..=0xDFFF).contains(&lo) => {
                                return Ok(Some(0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)));
                            }
                            _ => self.pos = save,
                        }
                    }
                    v
                } else if self.flags.unicode && self.eat('{') {
                    match self.code_point_in_braces() {
                        Some(v) => v,
                        None => return Err(self.syntax("invalid Unicode escape")),
                    }
                } else if self.flags.unicode {
                    return Err(self.syntax("invalid Unicode escape"));
                } else {
                    u32::from('u')
                }
            }
            '-' if in_class => u32::from('-'),
            c if is_syntax_char(c) => u32::from(c),
            _ if self.flags.unicode => return Err(self.syntax("invalid escape")),
            'k' if self.has_named => return Err(self.syntax("invalid escape")),
            c => self.unit_of(c),
        };
        Ok(Some(unit))
    }

    fn class(&mut self) -> Result<Hir, CheckError> {
        self.pos += 1;
        let negated = self.eat('^');
        let mut set = ClassUnicode::empty();
        loop {
            match self.peek() {
                None => return Err(self.syntax("unterminated character class")),
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {}
            }
            let first = self.class_atom()?;
            if self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None) {
                self.pos += 1;
                let second = self.class_atom()?;
                match (first, second) {
                    (ClassAtom::Unit(a), ClassAtom::Unit(b)) => {
                        if a > b {
                            return Err(self.syntax("range out of order in character class"));
                        }
                        self.push(&mut set, a, b);
                    }
                    (a, b) => {
                        if self.flags.unicode {
                            return Err(self.syntax("invalid character class range"));
                        }
                        for atom in [a, b] {
                            self.add_atom(&mut set, atom);
                        }
                        push_units(&mut set, 0x2D, 0x2D);
                    }
                }
            } else {
                self.add_atom(&mut set, first);
            }
        }
        self.class_hir(set, negated)
    }

    fn class_atom(&mut self) -> Result<ClassAtom, CheckError> {
        let Some(c) = self.bump() else {
            return Err(self.syntax("unterminated character class"));
        };
        if c != '\\' {
            return Ok(ClassAtom::Unit(self.unit_of(c)));
        }
        let Some(e) = self.peek() else {
            return Err(self.syntax("\\ at end of pattern"));
        };
        match e {
            'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                self.pos += 1;
                let (mut set, negated) = self.class_escape(e);
                if negated {
                    set.negate();
                }
                Ok(ClassAtom::Set(set))
            }
            'b' => {
                self.pos += 1;
                Ok(ClassAtom::Unit(0x08))
            }
            '1'..='9' if self.flags.unicode => Err(self.syntax("invalid class escape")),
            '1'..='7' => Ok(ClassAtom::Unit(self.legacy_octal())),
            'p' | 'P' if self.flags.unicode => Ok(ClassAtom::Set(self.property_escape()?)),
            // `\8`, `\9` (identity escapes without `u`) and `\k` (a syntax error with `u` or
            // named groups) are character escapes here.
            _ => match self.character_escape(true)? {
                Some(unit) => Ok(ClassAtom::Unit(unit)),
                None => Ok(ClassAtom::Unit(u32::from('\\'))),
            },
        }
    }
}

fn listed(list: &str, name: &str) -> bool {
    list.split_ascii_whitespace().any(|v| v == name)
}

/// Maps the body of an ECMAScript `\p{…}` (exact spelling, as V8 requires) to a `regex`-crate
/// property spec, or `None` when ECMAScript does not know the property (a `SyntaxError`).
fn property_spec(body: &str) -> Option<String> {
    match body.split_once('=') {
        Some((name, value)) => {
            let (kind, list) = match name {
                "General_Category" | "gc" => ("gc", GC_VALUES),
                "Script" | "sc" => ("sc", SCRIPT_VALUES),
                "Script_Extensions" | "scx" => ("scx", SCRIPT_VALUES),
                _ => return None,
            };
            listed(list, value).then(|| format!("{kind}={value}"))
        }
        None if listed(GC_VALUES, body) => Some(format!("gc={body}")),
        None if listed(BINARY_PROPERTIES, body) => Some(body.to_owned()),
        None => None,
    }
}

/// The code points of a `regex`-crate property spec (`gc=Lu`, `sc=Greek`, `Alphabetic`).
fn property_set(spec: &str) -> Result<ClassUnicode, CheckError> {
    let unsupported =
        || CheckError::UnsupportedPattern(format!("Unicode property {spec} is not available"));
    if matches!(spec, "sc=Unknown" | "sc=Zzzz" | "scx=Unknown" | "scx=Zzzz") {
        // Script `Unknown` is every unassigned, private-use or surrogate code point (UAX #24);
        // the `regex` crate has no table for it.
        let mut set = property_set("gc=Cn")?;
        set.union(&property_set("gc=Co")?);
        return Ok(set);
    }
    if spec == "gc=Cs" || spec == "gc=Surrogate" {
        // Only surrogates; a Rust subject contains none (see the module doc).
        return Ok(ClassUnicode::empty());
    }
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&format!("\\p{{{spec}}}"))
        .map_err(|_| unsupported())?;
    match hir.kind() {
        HirKind::Class(Class::Unicode(set)) => Ok(set.clone()),
        // A one-code-point property (e.g. `gc=Zl`) comes back as a literal.
        HirKind::Literal(lit) => {
            let text = std::str::from_utf8(&lit.0).map_err(|_| unsupported())?;
            let mut set = ClassUnicode::empty();
            for c in text.chars() {
                set.push(ClassUnicodeRange::new(c, c));
            }
            Ok(set)
        }
        _ => Err(unsupported()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_property_has_a_table() {
        for v in GC_VALUES.split_ascii_whitespace() {
            for body in [
                v.to_owned(),
                format!("gc={v}"),
                format!("General_Category={v}"),
            ] {
                let spec = property_spec(&body).unwrap_or_else(|| panic!("{body}"));
                property_set(&spec).unwrap_or_else(|e| panic!("{body}: {e}"));
            }
        }
        for v in BINARY_PROPERTIES.split_ascii_whitespace() {
            let spec = property_spec(v).unwrap_or_else(|| panic!("{v}"));
            match property_set(&spec) {
                // No table in the `regex` crate: refused, not guessed (module doc).
                Err(CheckError::UnsupportedPattern(_))
                    if v == "Changes_When_NFKC_Casefolded" || v == "CWKCF" => {}
                other => {
                    other.unwrap_or_else(|e| panic!("{v}: {e}"));
                }
            }
        }
        for v in SCRIPT_VALUES.split_ascii_whitespace() {
            for body in [format!("sc={v}"), format!("Script_Extensions={v}")] {
                let spec = property_spec(&body).unwrap_or_else(|| panic!("{body}"));
                property_set(&spec).unwrap_or_else(|e| panic!("{body}: {e}"));
            }
        }
    }

    /// A backreference to a group that exists is refused as unsupported, but only once the
    /// whole pattern is valid: `new RegExp` throws a `SyntaxError` (`InvalidParams`) for a
    /// `\k<name>` naming no group and for a syntax error after the reference.
    #[test]
    fn backreferences_are_refused_after_the_syntax() {
        let code = |pattern: &str, flags: &str| match EcmaRegex::new(pattern, flags) {
            Ok(_) => "ok",
            Err(CheckError::UnsupportedPattern(_)) => "unsupported",
            Err(CheckError::InvalidParams(_)) => "invalid",
            Err(_) => "other",
        };
        for (pattern, flags, want) in [
            ("(a)\\1", "", "unsupported"),
            ("(a)\\1+", "u", "unsupported"),
            ("\\1(a)", "", "unsupported"),
            ("(?<n>a)\\k<n>", "", "unsupported"),
            ("\\k<n>(?<n>a)", "u", "unsupported"),
            ("\\k<n>", "u", "invalid"),
            ("(?<m>a)\\k<n>", "", "invalid"),
            ("(?<m>a)\\k<n>", "u", "invalid"),
            ("(a)\\1[", "", "invalid"),
            ("(?<n>a)\\k<n>(", "", "invalid"),
            ("\\k<n>", "", "ok"),
            ("\\2(a)", "", "ok"),
        ] {
            assert_eq!(code(pattern, flags), want, "/{pattern}/{flags}");
        }
    }

    #[test]
    fn unknown_or_misspelt_properties_are_refused() {
        for body in [
            "letter",
            "Letters",
            "lu",
            "Script",
            "General_Category",
            "gc=Greek",
            "Greek",
            "sc=greek",
            "sc=GREK",
            "sc=L",
            "Lu=Lu",
            "Block=Basic_Latin",
            "RGI_Emoji",
            "sc=Katakana_Or_Hiragana",
            "sc=Greek=x",
            "",
        ] {
            assert_eq!(property_spec(body), None, "{body}");
        }
    }
}
