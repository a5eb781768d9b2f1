"""ECMAScript `RegExp` (ES2023, Annex B without `u`) on top of Python's `re`, stdlib only.

§6.2 `regex_match` tests `new RegExp(pattern, flags)`: the pattern is parsed here with
ECMAScript's grammar and written out as a Python `re` pattern that means the same thing, so
`re` only runs the match. What differs between the two dialects is translated, not assumed:

- without `u` the pattern and the subject are sequences of UTF-16 code units (a surrogate pair is
  two characters); with `u`, code points;
- `\\d`, `\\w`, `\\b` are ASCII; `\\s` and `.` use ECMAScript's line terminators and white space
  (U+FEFF is white space, U+0085 is not; `.` does not match U+2028/U+2029);
- `^`/`$` are input boundaries unless `m` (then also at line terminators): `$` never matches
  before a final newline, as Python's does;
- `i` without `u` folds with `toUpperCase` (ECMAScript Canonicalize: `ſ` does not match `s`,
  the Kelvin sign does not match `K`), with `u` by simple case folding;
- Annex B: a `{` that is no quantifier, a `]`, `\\c` without a letter, `\\8`, octal escapes and
  unknown identity escapes are literals; `[]` matches nothing and `[^]` anything;
- Python-only syntax (`(?P<n>…)`, `(?i)`, `\\Z`, `\\A`, `{,n}`, possessive quantifiers) is
  read as ECMAScript reads it (a SyntaxError, or a literal).

Two ways to run a translation: `test` hands it to `re` (the spec-literal adapter's
`new RegExp`, which backtracks like V8), and `compile_linear(...).test` turns it into an
automaton (the example library's D12 reading: no backtracking, so no hostile pattern can hang
it; backreferences and lookaround are refused with NotRegular).

Not available in the stdlib: the Unicode `Script`/`Script_Extensions` and binary properties
other than `Any`/`ASCII`/`Assigned` (`\\p{Emoji}`, `\\p{sc=Greek}`) — a pattern using one raises
`Unsupported`, never a guess. A pattern of star height ≥ 2 on a long subject raises
`Unsupported` too: both engines backtrack, and answering would take exponential time.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache


class JsSyntaxError(Exception):
    """`new RegExp` would throw a SyntaxError."""


class Unsupported(Exception):
    """The stdlib cannot evaluate this faithfully."""


class NotRegular(Exception):
    """Linear mode: a backreference or a lookaround, which no automaton can run (D12)."""


class TooLarge(Exception):
    """Linear mode: the pattern nests too deeply or its automaton would be too large."""


LINE_TERMINATORS = "\n\r\u2028\u2029"
WHITE_SPACE = "\t\v\f \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\ufeff"
SPACE_CLASS = WHITE_SPACE + LINE_TERMINATORS
WORD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
DIGITS = "0123456789"
SYNTAX_CHARS = set("^$\\.*+?()[]{}|/")
MAX_CP = 0x10FFFF
LEAF_BASE = 0x100000  # linear mode: character set k is written as the code point LEAF_BASE + k
MAX_NEST = 128  # linear mode: deepest group nesting
MAX_STATES = 100_000  # linear mode: largest automaton


def utf16_units(text: str) -> str:
    """`text` as a string of UTF-16 code units (a surrogate pair becomes two characters)."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(chr(0xD800 + (cp >> 10)))
            out.append(chr(0xDC00 + (cp & 0x3FF)))
        else:
            out.append(ch)
    return "".join(out)


# --- character sets as sorted, merged lists of (lo, hi) ranges ----------------------------------


def _merge(ranges):
    out = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _of(chars):
    return _merge((ord(c), ord(c)) for c in chars)


def _complement(ranges, top):
    out, nxt = [], 0
    for lo, hi in _merge(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= top:
        out.append((nxt, top))
    return out


def _contains(ranges, cp):
    return any(lo <= cp <= hi for lo, hi in ranges)


def _py_class(ranges, negate=False):
    if not ranges:
        return r"[^\s\S]" if not negate else r"[\s\S]"
    body = "".join(
        f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges
    )
    return f"[{'^' if negate else ''}{body}]"


# --- Unicode properties (`\p{…}` with `u`) ---------------------------------------------------------
GC_ALIASES = {
    "L": "L", "Letter": "L", "LC": "LC", "Cased_Letter": "LC", "Lu": "Lu", "Uppercase_Letter": "Lu",
    "Ll": "Ll", "Lowercase_Letter": "Ll", "Lt": "Lt", "Titlecase_Letter": "Lt", "Lm": "Lm",
    "Modifier_Letter": "Lm", "Lo": "Lo", "Other_Letter": "Lo", "M": "M", "Mark": "M",
    "Combining_Mark": "M", "Mn": "Mn", "Nonspacing_Mark": "Mn", "Mc": "Mc", "Spacing_Mark": "Mc",
    "Me": "Me", "Enclosing_Mark": "Me", "N": "N", "Number": "N", "Nd": "Nd", "digit": "Nd",
    "Decimal_Number": "Nd", "Nl": "Nl", "Letter_Number": "Nl", "No": "No", "Other_Number": "No",
    "P": "P", "Punctuation": "P", "punct": "P", "Pc": "Pc", "Connector_Punctuation": "Pc",
    "Pd": "Pd", "Dash_Punctuation": "Pd", "Ps": "Ps", "Open_Punctuation": "Ps", "Pe": "Pe",
    "Close_Punctuation": "Pe", "Pi": "Pi", "Initial_Punctuation": "Pi", "Pf": "Pf",
    "Final_Punctuation": "Pf", "Po": "Po", "Other_Punctuation": "Po", "S": "S", "Symbol": "S",
    "Sm": "Sm", "Math_Symbol": "Sm", "Sc": "Sc", "Currency_Symbol": "Sc", "Sk": "Sk",
    "Modifier_Symbol": "Sk", "So": "So", "Other_Symbol": "So", "Z": "Z", "Separator": "Z",
    "Zs": "Zs", "Space_Separator": "Zs", "Zl": "Zl", "Line_Separator": "Zl", "Zp": "Zp",
    "Paragraph_Separator": "Zp", "C": "C", "Other": "C", "Cc": "Cc", "Control": "Cc", "cntrl": "Cc",
    "Cf": "Cf", "Format": "Cf", "Cs": "Cs", "Surrogate": "Cs", "Co": "Co", "Private_Use": "Co",
    "Cn": "Cn", "Unassigned": "Cn",
}
SCRIPT_NAMES = {"Script", "sc", "Script_Extensions", "scx"}
# Binary properties ECMAScript knows (ES2023 table 67); the stdlib has data for none but these.
BINARY_KNOWN = {
    "ASCII", "ASCII_Hex_Digit", "AHex", "Alphabetic", "Alpha", "Any", "Assigned", "Bidi_Control",
    "Bidi_C", "Bidi_Mirrored", "Bidi_M", "Case_Ignorable", "CI", "Cased", "Changes_When_Casefolded",
    "CWCF", "Changes_When_Casemapped", "CWCM", "Changes_When_Lowercased", "CWL",
    "Changes_When_NFKC_Casefolded", "CWKCF", "Changes_When_Titlecased", "CWT",
    "Changes_When_Uppercased", "CWU", "Dash", "Default_Ignorable_Code_Point", "DI", "Deprecated",
    "Dep", "Diacritic", "Dia", "Emoji", "Emoji_Component", "EComp", "Emoji_Modifier", "EMod",
    "Emoji_Modifier_Base", "EBase", "Emoji_Presentation", "EPres", "Extended_Pictographic",
    "ExtPict", "Extender", "Ext", "Grapheme_Base", "Gr_Base", "Grapheme_Extend", "Gr_Ext",
    "Hex_Digit", "Hex", "IDS_Binary_Operator", "IDSB", "IDS_Trinary_Operator", "IDST",
    "ID_Continue", "IDC", "ID_Start", "IDS", "Ideographic", "Ideo", "Join_Control", "Join_C",
    "Logical_Order_Exception", "LOE", "Lowercase", "Lower", "Math", "Noncharacter_Code_Point",
    "NChar", "Pattern_Syntax", "Pat_Syn", "Pattern_White_Space", "Pat_WS", "Quotation_Mark",
    "QMark", "Radical", "Regional_Indicator", "RI", "Sentence_Terminal", "STerm", "Soft_Dotted",
    "SD", "Terminal_Punctuation", "Term", "Unified_Ideograph", "UIdeo", "Uppercase", "Upper",
    "Variation_Selector", "VS", "White_Space", "space", "XID_Continue", "XIDC", "XID_Start", "XIDS",
}


@lru_cache(maxsize=None)
def _category_ranges(gc: str):
    groups = {"L": "Lu Ll Lt Lm Lo", "LC": "Lu Ll Lt", "M": "Mn Mc Me", "N": "Nd Nl No",
              "P": "Pc Pd Ps Pe Pi Pf Po", "S": "Sm Sc Sk So", "Z": "Zs Zl Zp",
              "C": "Cc Cf Cs Co Cn"}
    table = _category_table()
    return tuple(_merge([r for name in groups.get(gc, gc).split() for r in table.get(name, ())]))


# Planes 4-13 are unassigned (Cn) and planes 15-16 private use (Co, but for their last two code
# points) in every Unicode version so far: `_category_table` takes them as blocks, not one
# code point at a time (the same table, in a third of the time).
_BLOCKS = ((0x40000, 0xDFFFF, "Cn"), (0xF0000, 0xFFFFD, "Co"), (0x100000, 0x10FFFD, "Co"))


@lru_cache(maxsize=1)
def _category_table():
    """General_Category → code point ranges, in one pass over the code space."""
    runs, lo = [], 0  # (first code point, category), one per change of category
    category = unicodedata.category
    for block_lo, block_hi, block_cat in _BLOCKS + ((MAX_CP + 1, MAX_CP, None),):
        last = runs[-1][1] if runs else None
        for cp in range(lo, block_lo):
            cat = category(chr(cp))
            if cat != last:
                runs.append((cp, cat))
                last = cat
        if block_cat is not None and block_cat != last:
            runs.append((block_lo, block_cat))
        lo = block_hi + 1
    table = {}
    for (first, cat), (nxt, _) in zip(runs, runs[1:] + [(MAX_CP + 1, None)]):
        table.setdefault(cat, []).append((first, nxt - 1))
    return table


def _property(body: str):
    if "=" in body:
        name, value = body.split("=", 1)
        if name in ("General_Category", "gc"):
            if value not in GC_ALIASES:
                raise JsSyntaxError(f"unknown General_Category {value!r}")
            return list(_category_ranges(GC_ALIASES[value]))
        if name in SCRIPT_NAMES:
            if not re.fullmatch(r"[A-Z][A-Za-z_]*", value or ""):
                raise JsSyntaxError(f"unknown script {value!r}")
            raise Unsupported(f"\\p{{{body}}}: the Python stdlib has no Unicode Script data")
        raise JsSyntaxError(f"unknown property {name!r}")
    if body in GC_ALIASES:
        return list(_category_ranges(GC_ALIASES[body]))
    if body == "Any":
        return [(0, MAX_CP)]
    if body == "ASCII":
        return [(0, 0x7F)]
    if body == "Assigned":
        return _complement(list(_category_ranges("Cn")), MAX_CP)
    if body in BINARY_KNOWN:
        raise Unsupported(f"\\p{{{body}}}: the Python stdlib has no data for this property")
    raise JsSyntaxError(f"unknown property {body!r}")


# --- case folding -------------------------------------------------------------------------------


def _canonicalize_nonu(cp: int) -> int:
    """ECMAScript Canonicalize without `u`: toUpperCase if it is one code unit and does not map a
    non-ASCII character to an ASCII one."""
    up = chr(cp).upper()
    if len(up) != 1 or len(utf16_units(up)) != 1:
        return cp
    u = ord(up)
    if cp >= 128 and u < 128:
        return cp
    return u


@lru_cache(maxsize=1)
def _nonu_classes():
    """Equivalence classes (size ≥ 2) of code units under Canonicalize."""
    by = {}
    for cp in range(0x10000):
        by.setdefault(_canonicalize_nonu(cp), []).append(cp)
    return [members for members in by.values() if len(members) > 1]


def _fold_nonu(ranges):
    extra = []
    for members in _nonu_classes():
        if any(_contains(ranges, m) for m in members):
            extra.extend((m, m) for m in members)
    return _merge(list(ranges) + extra)


# --- the parser -------------------------------------------------------------------------------------


class _Translator:
    def __init__(self, pattern: str, flags: str, linear: bool = False):
        # `linear`: the output is parsed into an automaton (`LinearRegex`), not run by `re`:
        # every character set becomes a placeholder leaf, assertions are written as `re`'s own
        # `\A \Z ^ $ \b \B` (given ECMAScript meaning by the automaton), and backreferences
        # and lookaround raise NotRegular.
        self.linear = linear
        self.leaves = []
        self.u = "u" in flags
        self.i = "i" in flags
        self.m = "m" in flags
        self.s = "s" in flags
        self.src = pattern if self.u else utf16_units(pattern)
        self.pos = 0
        self.top = MAX_CP if self.u else 0xFFFF
        self.group_names, self.ncapture = self._scan_groups()
        self.named_seen = set()
        self.depth = 0
        # Linear mode refuses a backreference only after the whole pattern parsed: a syntax
        # error anywhere is what `new RegExp` throws first (and so JsSyntaxError wins).
        self.backreference = False
        self.star_height = 0

    def _scan_groups(self):
        """The names and the number of capturing groups (escapes and classes skipped)."""
        names, count, i, src, in_class = [], 0, 0, self.src, False
        while i < len(src):
            c = src[i]
            if c == "\\":
                i += 2
                continue
            if in_class:
                in_class = c != "]"
            elif c == "[":
                in_class = True
            elif c == "(":
                if not src.startswith("?", i + 1):
                    count += 1
                elif src.startswith("?<", i + 1) and src[i + 3 : i + 4] not in ("=", "!"):
                    count += 1
                    save = self.pos
                    self.pos = i + 3
                    try:
                        names.append(self.group_name())
                    except JsSyntaxError:
                        pass
                    self.pos = save
            i += 1
        return names, count

    def group_name(self):
        """RegExpIdentifierName up to `>` (escapes `\\uXXXX`, pairs and `\\u{…}` allowed)."""
        chars = []
        while True:
            c = self.peek()
            if c is None:
                self.err("unterminated group name")
            if c == ">":
                self.pos += 1
                break
            if c == "\\":
                if self.peek(1) != "u":
                    self.err("invalid escape in group name")
                self.pos += 2
                if self.peek() == "{":
                    m = re.compile(r"\{([0-9a-fA-F]+)\}").match(self.src, self.pos)
                    if not m or int(m.group(1), 16) > MAX_CP:
                        self.err("invalid escape in group name")
                    self.pos = m.end()
                    cp = int(m.group(1), 16)
                else:
                    cp = self.hex_escape(4)
                    if cp is None:
                        self.err("invalid escape in group name")
                    if 0xD800 <= cp <= 0xDBFF and self.src.startswith("\\u", self.pos):
                        save = self.pos
                        self.pos += 2
                        lo = self.hex_escape(4)
                        if lo is not None and 0xDC00 <= lo <= 0xDFFF:
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                        else:
                            self.pos = save
            else:
                self.pos += 1
                cp = ord(c)
                nxt = self.peek()
                if 0xD800 <= cp <= 0xDBFF and nxt is not None and 0xDC00 <= ord(nxt) <= 0xDFFF:
                    self.pos += 1
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (ord(nxt) - 0xDC00)
            chars.append(chr(cp))
        name = "".join(chars)
        ok = bool(name) and all(not 0xD800 <= ord(ch) <= 0xDFFF for ch in name)
        if ok:
            head, tail = name[0], name[1:]
            ok = (head in "$_" or head.isidentifier()) and all(
                ch in "$\u200c\u200d" or ("a" + ch).isidentifier() for ch in tail
            )
        if not ok:
            self.err("invalid capture group name")
        return name

    # helpers
    def peek(self, k=0):
        j = self.pos + k
        return self.src[j] if j < len(self.src) else None

    def eat(self, s):
        if self.src.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def err(self, why):
        raise JsSyntaxError(why)

    def word_ranges(self):
        w = _of(WORD)
        if self.u and self.i:
            w = _merge(w + [(0x17F, 0x17F), (0x212A, 0x212A)])
        return w

    def class_escape_ranges(self, c):
        base = {"d": _of(DIGITS), "s": _of(SPACE_CLASS), "w": self.word_ranges()}[c.lower()]
        return _complement(base, self.top) if c.isupper() else base

    def chars_atom(self, ranges, negate=False):
        """A set of characters as a Python class, folded for `i` without `u` (with `u`, `re`'s
        IGNORECASE folds)."""
        if self.i and not self.u:
            ranges = _fold_nonu(ranges)
        return self.leaf(_py_class(_merge(ranges), negate))

    def leaf(self, py_class):
        """Linear mode: a placeholder code point (plane 16) standing for leaf number k."""
        if not self.linear:
            return py_class
        if len(self.leaves) >= 0xFFFE:
            raise TooLarge("too many character sets")
        self.leaves.append(py_class)
        return "\\U%08x" % (LEAF_BASE + len(self.leaves) - 1)

    def literal(self, cp):
        return self.chars_atom([(cp, cp)])

    # grammar
    def parse(self):
        out = self.disjunction()
        if self.pos != len(self.src):
            self.err("unmatched )")
        if self.backreference:
            raise NotRegular("backreference")
        return out

    def disjunction(self):
        alts = [self.alternative()]
        while self.eat("|"):
            alts.append(self.alternative())
        return "(?:" + "|".join(alts) + ")"

    def alternative(self):
        parts = []
        while self.peek() is not None and self.peek() not in "|)":
            parts.append(self.term())
        return "".join(parts)

    def term(self):
        start = self.pos
        atom, quantifiable, inner_quant = self.atom_or_assertion()
        q = self.quantifier()
        if q is None:
            return atom
        if not quantifiable:
            self.pos = start
            self.err("nothing to repeat")
        if inner_quant:
            self.star_height = max(self.star_height, 2)
        return f"(?:{atom}){q}"

    def quantifier(self):
        c = self.peek()
        if c in ("*", "+", "?"):
            self.pos += 1
            q = c
        elif c == "{":
            m = re.compile(r"\{([0-9]+)(,([0-9]*))?\}").match(self.src, self.pos)
            if not m:
                if self.u:
                    self.err("lone {")
                return None  # Annex B: a literal `{`, read by atom()
            lo = int(m.group(1))
            hi = None if m.group(2) and not m.group(3) else int(m.group(3) or m.group(1))
            if hi is not None and hi < lo:
                self.err("numbers out of order in {} quantifier")
            self.pos = m.end()
            q = "{%d,%s}" % (lo, "" if hi is None else hi)
        else:
            return None
        if self.eat("?"):
            q += "?"
        return q

    def atom_or_assertion(self):
        c = self.peek()
        if self.linear and (c in "^$" or (c == "\\" and self.peek(1) in ("b", "B"))):
            self.pos += 1 if c in "^$" else 2
            if c == "^":
                return ("^" if self.m else "\\A", False, False)
            if c == "$":
                return ("$" if self.m else "\\Z", False, False)
            return ("\\" + self.peek(-1), False, False)
        if c == "^":
            self.pos += 1
            return ((f"(?:\\A|(?<=[{re.escape(LINE_TERMINATORS)}]))" if self.m else "\\A"), False, False)
        if c == "$":
            self.pos += 1
            return ((f"(?=[{re.escape(LINE_TERMINATORS)}]|\\Z)" if self.m else "\\Z"), False, False)
        if c == "\\" and self.peek(1) in ("b", "B"):
            self.pos += 2
            w = _py_class(self.word_ranges())
            if self.peek(-1) == "b":
                return (f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))", False, False)
            return (f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))", False, False)
        if c == "(":
            return self.group()
        if c == ".":
            self.pos += 1
            if self.s:
                return (self.leaf(_py_class([(0, self.top)])), True, False)
            return (self.chars_atom(_complement(_of(LINE_TERMINATORS), self.top)), True, False)
        if c == "[":
            return (self.char_class(), True, False)
        if c == "\\":
            return (self.atom_escape(), True, False)
        if c in ("*", "+", "?"):
            self.err("nothing to repeat")
        if c == "{":
            if self.u:
                self.err("lone {")
            if re.compile(r"\{[0-9]+(,[0-9]*)?\}").match(self.src, self.pos):
                self.err("nothing to repeat")
        if c in ("}", "]") and self.u:
            self.err(f"lone {c}")
        self.pos += 1
        return (self.literal(self.code_point_at(c)), True, False)

    def code_point_at(self, c):
        return ord(c)

    def group(self):
        self.pos += 1
        self.depth += 1
        before = self.star_height
        self.star_height = 0
        kind, name = "", None
        if self.eat("?:"):
            kind = "?:"
        elif self.eat("?="):
            kind = "?="
        elif self.eat("?!"):
            kind = "?!"
        elif self.eat("?<="):
            kind = "?<="
        elif self.eat("?<!"):
            kind = "?<!"
        elif self.eat("?<"):
            name = self.group_name()
            if name in self.named_seen:
                self.err("duplicate capture group name")
            self.named_seen.add(name)
            kind = f"?P<{self._py_name(name)}>"
        elif self.peek() == "?":
            self.err("invalid group")
        if self.linear:
            if kind in ("?=", "?!", "?<=", "?<!"):
                raise NotRegular("lookaround")
            if self.depth > MAX_NEST:
                raise TooLarge(f"groups nested deeper than {MAX_NEST}")
            kind = "?:"  # captures do not matter to test()
        inner = self.disjunction()
        if not self.eat(")"):
            self.err("unterminated group")
        self.depth -= 1
        # A quantifier or an alternation inside: quantifying this group can backtrack
        # exponentially (`(a+)+`, `(a|a)*`).
        has_quant = self.star_height > 0 or bool(re.search(r"[*+}|]", inner))
        self.star_height = before
        quantifiable = kind in ("", "?:") or kind.startswith("?P<") or (not self.u and kind in ("?=", "?!"))
        return (f"({kind}{inner})", quantifiable, has_quant)

    @staticmethod
    def _py_name(name):
        return "g_" + "".join(c if c.isalnum() or c == "_" else f"_{ord(c):x}_" for c in name)

    def hex_escape(self, n):
        text = self.src[self.pos : self.pos + n]
        if len(text) == n and all(c in "0123456789abcdefABCDEF" for c in text):
            self.pos += n
            return int(text, 16)
        return None

    def unicode_escape(self):
        """After `\\u`: the code point, or None (Annex B identity escape `u`)."""
        if self.u and self.peek() == "{":
            m = re.compile(r"\{([0-9a-fA-F]+)\}").match(self.src, self.pos)
            if not m or int(m.group(1), 16) > MAX_CP:
                self.err("invalid unicode escape")
            self.pos = m.end()
            return int(m.group(1), 16)
        v = self.hex_escape(4)
        if v is None:
            if self.u:
                self.err("invalid unicode escape")
            return None
        if self.u and 0xD800 <= v <= 0xDBFF and self.src.startswith("\\u", self.pos):
            save = self.pos
            self.pos += 2
            lo = self.hex_escape(4)
            if lo is not None and 0xDC00 <= lo <= 0xDFFF:
                return 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
            self.pos = save
        return v

    def character_escape(self, in_class):
        """After the backslash, an escape that is one character: its code point (or a set)."""
        c = self.peek()
        if c is None:
            self.err("\\ at end of pattern")
        self.pos += 1
        simple = {"t": 9, "n": 10, "v": 11, "f": 12, "r": 13}
        if c in simple:
            return simple[c]
        if c == "c":
            nxt = self.peek()
            if nxt is not None and nxt.isascii() and nxt.isalpha():
                self.pos += 1
                return ord(nxt) % 32
            if in_class and not self.u and nxt is not None and (nxt.isdigit() or nxt == "_"):
                self.pos += 1
                return ord(nxt) % 32
            if self.u:
                self.err("invalid \\c escape")
            self.pos -= 1  # Annex B: the backslash itself, then `c` as a literal
            return ord("\\")
        if c == "0" and not (self.peek() or "").isdigit():
            return 0
        if c.isdigit():
            if self.u:
                self.err("invalid escape")
            if c in "89":
                return ord(c)
            m = re.compile(r"[0-7]{0,2}").match(self.src, self.pos)
            digits = c + m.group(0)
            if int(digits, 8) > 0o377:
                digits = digits[:2]
            self.pos += len(digits) - 1
            return int(digits, 8)
        if c == "x":
            v = self.hex_escape(2)
            if v is None:
                if self.u:
                    self.err("invalid \\x escape")
                return ord("x")
            return v
        if c == "u":
            v = self.unicode_escape()
            return ord("u") if v is None else v
        if self.u:
            if c in SYNTAX_CHARS or (in_class and c == "-"):
                return ord(c)
            self.err(f"invalid escape \\{c}")
        if c == "k" and self.group_names:
            self.err("invalid named reference")
        return ord(c)

    def property_escape(self, negate):
        m = re.compile(r"\{([A-Za-z0-9_=]+)\}").match(self.src, self.pos)
        if not m:
            self.err("invalid property name")
        self.pos = m.end()
        ranges = _property(m.group(1))
        return _complement(ranges, MAX_CP) if negate else ranges

    def atom_escape(self):
        self.pos += 1
        c = self.peek()
        if c is None:
            self.err("\\ at end of pattern")
        if c in "dDsSwW":
            self.pos += 1
            return self.chars_atom(self.class_escape_ranges(c))
        if self.u and c in "pP":
            self.pos += 1
            return self.chars_atom(self.property_escape(c == "P"))
        if c.isdigit() and c != "0":
            m = re.compile(r"[0-9]+").match(self.src, self.pos)
            n = int(m.group(0))
            if n <= self.ncapture:
                if self.linear:
                    self.backreference = True
                    self.pos = m.end()
                    return "(?:)"
                # A backreference (Python fails where ECMAScript matches an unset group as empty;
                # no corpus case references a group that is not set).
                self.pos = m.end()
                return f"(?:\\{n})"
            if self.u:
                self.err("invalid backreference")
        if c == "k" and (self.u or self.group_names):
            self.pos += 1
            if not self.eat("<"):
                self.err("invalid named reference")
            name = self.group_name()
            if name not in self.group_names:
                self.err("invalid named reference")
            if self.linear:
                self.backreference = True
                return "(?:)"
            return f"(?P={self._py_name(name)})"
        return self.literal(self.character_escape(False))

    def char_class(self):
        self.pos += 1
        negate = self.eat("^")
        ranges = []
        first = True
        while True:
            c = self.peek()
            if c is None:
                self.err("unterminated character class")
            if c == "]":
                self.pos += 1
                break
            first = False
            a = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in (None, "]"):
                save = self.pos
                self.pos += 1
                b = self.class_atom()
                if isinstance(a, list) or isinstance(b, list):
                    if self.u:
                        self.err("invalid character class range")
                    for x in (a, b):
                        ranges.extend(x if isinstance(x, list) else [(x, x)])
                    ranges.append((ord("-"), ord("-")))
                    continue
                if b < a:
                    self.err("range out of order in character class")
                ranges.append((a, b))
                continue
            ranges.extend(a if isinstance(a, list) else [(a, a)])
        del first
        return self.chars_atom(_merge(ranges), negate)

    def class_atom(self):
        c = self.peek()
        if c != "\\":
            self.pos += 1
            return ord(c)
        self.pos += 1
        e = self.peek()
        if e is None:
            self.err("\\ at end of pattern")
        if e in "dDsSwW":
            self.pos += 1
            return self.class_escape_ranges(e)
        if self.u and e in "pP":
            self.pos += 1
            return self.property_escape(e == "P")
        if e == "b":
            self.pos += 1
            return 8
        if e == "-" and self.u:
            self.pos += 1
            return ord("-")
        if e.isdigit() and e != "0" and self.u:
            self.err("invalid class escape")
        if e == "k" and not self.u:
            if self.group_names:
                self.err("invalid escape \\k in a class of a pattern with named groups")
            self.pos += 1
            return ord("k")
        return self.character_escape(True)


@lru_cache(maxsize=256)
def translate(pattern: str, flags: str) -> tuple:
    """(compiled Python regex, uses-u, star height); raises JsSyntaxError / Unsupported."""
    t = _Translator(pattern, flags)
    py = t.parse()
    pyflags = re.IGNORECASE if (t.i and t.u) else 0
    try:
        compiled = re.compile(py, pyflags)
    except re.error as e:
        if "look-behind" in str(e):
            raise Unsupported("variable-width lookbehind: Python re needs a fixed width") from e
        raise Unsupported(f"no faithful Python rendering: {e}") from e
    except RecursionError as e:
        raise Unsupported("pattern nested too deeply for Python re") from e
    return compiled, t.u, t.star_height


def check_flags(flags: str) -> None:
    for f in flags:
        if f not in "dgimsuyv":
            raise JsSyntaxError(f"invalid flag {f!r}")
    if len(set(flags)) != len(flags):
        raise JsSyntaxError("repeated flag")
    if "v" in flags:
        raise Unsupported("the `v` flag (unicodeSets) is not rendered here")


def test(pattern: str, flags: str, subject: str) -> bool:
    """`new RegExp(pattern, flags).test(subject)` (a fresh RegExp: `lastIndex` 0)."""
    check_flags(flags)
    compiled, u, star_height = translate(pattern, flags)
    if star_height >= 2 and len(subject) > 24:
        raise Unsupported("nested quantifiers on a long subject: exponential backtracking")
    text = subject if u else utf16_units(subject)
    if "y" in flags:
        return compiled.match(text) is not None
    return compiled.search(text) is not None


# --- linear mode: an automaton instead of backtracking (D12) ------------------------------------
# The decision reading (D12) runs untrusted patterns on untrusted subjects and must not hang, so
# the example library does not hand the translation to `re`: `_Translator(linear=True)` writes
# it with one placeholder per character set, `re`'s own parser turns that into a syntax tree,
# and the tree becomes a Thompson NFA, simulated one subject character at a time with the
# state sets cached (a lazy DFA). `test` only asks whether a match exists, so greediness and
# alternative order do not matter; backreferences and lookaround (NotRegular) have no automaton.
try:
    from re import _constants as _sre, _parser as _sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover
    import sre_constants as _sre
    import sre_parse as _sre_parse

_CHAR, _SPLIT, _ASSERT, _MATCH = range(4)


class LinearRegex:
    """`new RegExp(pattern, flags)` for `test`, in time linear in the subject."""

    def __init__(self, pattern: str, flags: str):
        t = _Translator(pattern, flags, linear=True)
        py = t.parse()
        try:
            tree = _sre_parse.parse(py, 0)
        except (re.error, OverflowError, RecursionError) as e:
            raise TooLarge(f"no automaton: {e}") from e
        ignore = re.IGNORECASE if (t.i and t.u) else 0  # without `u` the translator folded
        self.leaves = [re.compile(c, ignore) for c in t.leaves]
        self.u = t.u
        self.word = frozenset(chr(c) for lo, hi in t.word_ranges() for c in range(lo, hi + 1))
        self.kind, self.arg, self.out = [], [], []
        self.has_asserts = False
        final = self._state(_MATCH, None, ())
        self.start = self._seq(tree, final)
        self.start_set = frozenset([self.start])
        self._closures, self._steps = {}, {}

    def _state(self, kind, arg, out):
        if len(self.kind) >= MAX_STATES:
            raise TooLarge(f"automaton larger than {MAX_STATES} states")
        self.kind.append(kind)
        self.arg.append(arg)
        self.out.append(out)
        return len(self.kind) - 1

    def _seq(self, items, nxt):
        for op, av in reversed(list(items)):
            nxt = self._node(op, av, nxt)
        return nxt

    def _node(self, op, av, nxt):
        if op is _sre.LITERAL:
            k = av - LEAF_BASE
            leaf = self.leaves[k] if 0 <= k < len(self.leaves) else re.compile(re.escape(chr(av)))
            return self._state(_CHAR, leaf, (nxt,))
        if op is _sre.IN and all(o is _sre.LITERAL for o, _ in av):  # re merged one-set branches
            return self._state(_SPLIT, None, tuple(self._node(o, v, nxt) for o, v in av))
        if op is _sre.SUBPATTERN:
            return self._seq(av[-1], nxt)
        if op is _sre.BRANCH:
            return self._state(_SPLIT, None, tuple(self._seq(alt, nxt) for alt in av[1]))
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
            lo, hi, item = av
            before = len(self.kind)
            probe = self._seq(item, nxt)
            if probe == nxt and len(self.kind) == before:
                return nxt  # an empty item repeated is empty
            if hi == _sre.MAXREPEAT:
                loop = self._state(_SPLIT, None, ())
                self.out[loop] = (self._seq(item, loop), nxt)
                tail = loop
            else:
                if hi - lo > MAX_STATES:
                    raise TooLarge("counted repetition too large")
                tail = nxt
                for _ in range(hi - lo):
                    tail = self._state(_SPLIT, None, (self._seq(item, tail), nxt))
            if lo > MAX_STATES:
                raise TooLarge("counted repetition too large")
            for _ in range(lo):
                tail = self._seq(item, tail)
            return tail
        if op is _sre.AT:
            self.has_asserts = True
            return self._state(_ASSERT, av, (nxt,))
        raise TooLarge(f"unexpected node {op}")  # the translator writes nothing else

    # Context bits of a position: 1 start, 2 end, 4/8 word character before/after, 16/32 line
    # terminator before/after (ECMAScript's \n \r U+2028 U+2029).
    def _holds(self, at, ctx):
        if at is _sre.AT_BEGINNING_STRING:
            return bool(ctx & 1)
        if at is _sre.AT_END_STRING:
            return bool(ctx & 2)
        if at is _sre.AT_BEGINNING:  # `^` with `m`
            return bool(ctx & 17)
        if at is _sre.AT_END:  # `$` with `m`
            return bool(ctx & 34)
        if at is _sre.AT_BOUNDARY:
            return bool(ctx & 4) != bool(ctx & 8)
        return bool(ctx & 4) == bool(ctx & 8)  # AT_NON_BOUNDARY

    def _close(self, states, ctx):
        """The character states reachable without consuming, and whether MATCH is."""
        seen, stack, chars, matched = set(), list(states), [], False
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            kind = self.kind[s]
            if kind == _CHAR:
                chars.append(s)
            elif kind == _SPLIT:
                stack.extend(self.out[s])
            elif kind == _ASSERT:
                if self._holds(self.arg[s], ctx):
                    stack.append(self.out[s][0])
            else:
                matched = True
        return frozenset(chars), matched

    def _ctx(self, prev, ch):
        ctx = 0
        if prev is None:
            ctx |= 1
        else:
            ctx |= (4 if prev in self.word else 0) | (16 if prev in LINE_TERMINATORS else 0)
        if ch is None:
            ctx |= 2
        else:
            ctx |= (8 if ch in self.word else 0) | (32 if ch in LINE_TERMINATORS else 0)
        return ctx

    def test(self, subject: str) -> bool:
        """Is there a match anywhere (`RegExp.prototype.test` on a fresh object)?"""
        text = subject if self.u else utf16_units(subject)
        closures, steps = self._closures, self._steps
        if len(closures) + len(steps) > 50_000:
            closures.clear()
            steps.clear()
        pending, prev, n = self.start_set, None, len(text)
        for i in range(n + 1):
            ch = text[i] if i < n else None
            ctx = self._ctx(prev, ch) if self.has_asserts else 0
            closed = closures.get((pending, ctx))
            if closed is None:
                closed = closures[(pending, ctx)] = self._close(pending, ctx)
            if closed[1]:
                return True
            if ch is None:
                return False
            nxt = steps.get((closed[0], ch))
            if nxt is None:
                moved = [self.out[s][0] for s in closed[0] if self.arg[s].fullmatch(ch)]
                nxt = steps[(closed[0], ch)] = frozenset(moved) | self.start_set
            pending, prev = nxt, ch
        return False


@lru_cache(maxsize=256)
def compile_linear(pattern: str, flags: str) -> LinearRegex:
    """The automaton of an ECMAScript pattern; raises JsSyntaxError, NotRegular, TooLarge or
    Unsupported (a `\\p{…}` property the stdlib has no data for)."""
    try:
        return LinearRegex(pattern, flags)
    except RecursionError as e:
        raise TooLarge("pattern nested too deeply") from e


if __name__ == "__main__":  # a quick manual probe: ecmaregex.py PATTERN FLAGS SUBJECT
    print(test(sys.argv[1], sys.argv[2], sys.argv[3]))
