"""Every rule id of RULES.md has at least one test that carries it in its name or case."""

from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).parent
RULES = HERE.parents[1] / "docs" / "RULES.md"


def rule_ids() -> set[str]:
    return set(re.findall(r"^- ([GJBCN]\d+) ", RULES.read_text(), flags=re.M))


def test_rules_copy_lists_the_ids() -> None:
    ids = rule_ids()
    assert {"G1", "G8", "J1", "J13", "B1", "B9", "C1", "C5", "N1", "N11"} <= ids


def test_every_rule_id_is_tested() -> None:
    names = set()
    for f in HERE.glob("test_*.py"):
        names |= set(re.findall(r"def test_([GJBCN]\d+)_", f.read_text()))
    cases = json.loads((HERE / "data" / "rules-examples.json").read_text())["cases"]
    for case in cases:
        names |= {r for r in case["rules"] if re.fullmatch(r"[GJBCN]\d+", r)}
    missing = sorted(rule_ids() - names, key=lambda r: (r[0], int(r[1:])))
    assert not missing, f"rules without a test: {missing}"
