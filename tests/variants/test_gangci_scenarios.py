"""The Luoyang Gangci scenario files (tests/scenarios/luoyang-gangci/, format of issue 8 item 4)
are well formed until the engine runs them: valid TOML, valid notation, a tile census of at most
4 per kind (the 次牌 included), dealt sizes, known actions, outcome names and zero-sum chips."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from caishen.notation import parse_hand, parse_tiles
from caishen.variants.luoyang_gangci.adapter import SHAPES as LUOYANG_GANGCI
from caishen.variants.luoyang_gangci.rules import DEFAULT
from caishen.variants.luoyang_gangci.wins import GangciWin

DIR = Path(__file__).resolve().parent.parent / "scenarios" / "luoyang-gangci"
FILES = sorted(DIR.glob("*.toml"))
ACTION = re.compile(r"(discard|pong|exposed_kong|added_kong|concealed_kong) [1-9][mps]$|"
                    r"(discard|pong|exposed_kong|added_kong|concealed_kong) [1-7]z$|win$|pass$")
SEATS = "ESWN"


def tiles(text: str) -> list[int]:
    return [k for tok in text.split() for k in parse_tiles(tok, LUOYANG_GANGCI)]


def test_every_numbered_example_has_a_file() -> None:
    names = {f.name for f in FILES}
    for rule, kind, n in (("G5.3", "an-ci", 4), ("G5.4", "zhi-ci", 3), ("G5.5", "xu-ci", 2), ("G5.6", "zha-dan", 2)):
        for i in range(1, n + 1):
            assert f"{rule}-{kind}-example-{i}.toml" in names


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario_file_well_formed(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# G"), "a comment quoting the source comes first"
    data = tomllib.loads(text)
    assert data["variant"] == "luoyang-gangci"
    assert data["dealer"] in SEATS
    dice = data["dice"]
    assert len(dice) == 2 and all(1 <= d <= 6 for d in dice)
    DEFAULT.replace(**data.get("ruleset", {}))  # only Gangci switches, valid values
    census = [0] * 34
    for k in tiles(data["indicator"]):
        census[k] += 1
    deal = data["deal"]
    assert set(deal) <= set(SEATS)
    for seat, text_ in deal.items():
        hand = parse_hand(text_, LUOYANG_GANGCI)
        assert not hand.melds and not hand.flowers
        assert len(hand.concealed) == (14 if seat == data["dealer"] else 13)
        for k in hand.concealed:
            census[k] += 1
    for key in ("draws", "tail"):
        for k in tiles(data.get("wall", {}).get(key, "")):
            census[k] += 1
    assert max(census) <= 4, [k for k in range(34) if census[k] > 4]
    steps = data["steps"]
    for step in steps:
        assert step["seat"] in SEATS and ACTION.match(step["action"]), step
    for exp in data["expect"]:
        assert exp["after"] == "end" or 0 <= exp["after"] <= len(steps)
        assert exp["how"] in {w.value for w in GangciWin}
        assert exp["winner"] in SEATS
        chips = exp["chips"]
        assert set(chips) == set(SEATS) and sum(chips.values()) == 0
