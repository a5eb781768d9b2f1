"""The judge's number rule (spec/adapter-protocol.md, "Numbers"), pinned by the cases of
spec/data/number-equality.json (shipped in data/spec/data/): the Rust judge
(vectors/tests/number_rule.rs) and the npm judge run the same cases. Each JSON text is parsed as
the judge parses an adapter's reply and an expectation (json.loads: integers exact)."""

import json

import delegateos_vectors as dv
from delegateos_vectors import json_equal


def test_the_number_rule_holds_on_every_case_of_the_data_file():
    cases = json.loads((dv.DATA / "spec" / "data" / "number-equality.json").read_text("utf-8"))["cases"]
    assert len(cases) >= 15
    wrong = []
    for c in cases:
        a, b = json.loads(c["a"]), json.loads(c["b"])
        for x, y, tx, ty in ((a, b, c["a"], c["b"]), (b, a, c["b"], c["a"])):
            if json_equal(x, y) != c["equal"]:
                wrong.append(f"{tx} vs {ty}: expected equal={c['equal']} ({c['why']})")
    assert wrong == []
