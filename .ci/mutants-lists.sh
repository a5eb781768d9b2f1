#!/usr/bin/env bash
# Today's mutant lists of reference/src, for .ci/mutants-table.py:
#   DIR/current.json  what the documented command tests (.cargo/mutants.toml as committed);
#   DIR/full.json     the same without the config's "Equivalent mutants" section, so the table
#                     can show what that section excludes and score it as missed;
#   DIR/excluded.txt  what that section excludes, one "file: description" per mutant (no line
#                     numbers), compared with the committed .ci/mutants-excluded.txt: the run
#                     fails when a pattern starts excluding another mutant (a new, possibly real
#                     one would be hidden) or when an excluded mutant is gone (the argument in
#                     MUTANTS.md is stale). Update both files together, deliberately.
set -euo pipefail
dir=${1:?usage: .ci/mutants-lists.sh DIR}
mkdir -p "$dir"
cd "$(dirname "$0")/.."
cargo mutants --list --json -f 'reference/src/**/*.rs' > "$dir/current.json"
python3 - "$dir/base.toml" <<'PY'
import re, sys
text = open(".cargo/mutants.toml", encoding="utf-8").read()
start = text.index("    # ----")           # the "Equivalent mutants" section starts here
end = text.index("\n]", start)              # and runs to the end of exclude_re
if "Equivalent mutants" not in text[start:end]:
    sys.exit("mutants-lists: the config's Equivalent mutants section was not found")
open(sys.argv[1], "w", encoding="utf-8").write(text[:start] + text[end + 1:])
PY
cargo mutants --list --json --config "$dir/base.toml" -f 'reference/src/**/*.rs' > "$dir/full.json"
python3 - "$dir" <<'PY'
import json, re, sys
from collections import Counter
d = sys.argv[1]
ident = lambda m: re.sub(r":\d+:\d+:", ":", m["name"])
cur = Counter(ident(m) for m in json.load(open(f"{d}/current.json", encoding="utf-8")))
full = Counter(ident(m) for m in json.load(open(f"{d}/full.json", encoding="utf-8")))
excluded = sorted((full - cur).elements())
open(f"{d}/excluded.txt", "w", encoding="utf-8").write("".join(e + "\n" for e in excluded))
want = [l for l in open(".ci/mutants-excluded.txt", encoding="utf-8").read().splitlines()
        if l and not l.startswith("#")]
if sorted(want) != excluded:
    for e in sorted((Counter(excluded) - Counter(want)).elements()):
        print("mutants-lists: newly excluded:", e)
    for e in sorted((Counter(want) - Counter(excluded)).elements()):
        print("mutants-lists: no longer excluded:", e)
    sys.exit("mutants-lists: the config's equivalent exclusions differ from .ci/mutants-excluded.txt")
print(f"mutants-lists: {sum(cur.values())} mutants tested, {len(excluded)} excluded as "
      "equivalent (as .ci/mutants-excluded.txt lists)")
PY
