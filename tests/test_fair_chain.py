"""Issue 29, items 2 and 3 (caishen-fair-2): a chain over the hands and every person's
randomness in every wall. A record fails ``caishen verify`` when a hand is removed, reordered
or replaced, when a contribution is changed, when a seed does not match its commitment, or
when a contribution arrived after the deal or after the seed was revealed (docs/fairness.md)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from caishen import fair
from caishen.table.match import Match
from caishen.table.play import play
from caishen.table.players import RandomPlayer, player_rng
from caishen.table.record import MatchRecord, Mix, VerifyError, loads
from caishen.table.replay import verify
from caishen.variants.longgang.rules import LONGGANG

MINE = bytes(range(32))  # seat 0's contribution in every hand
THEIRS = bytes(range(100, 132))


def _mixed_match(hands: int = 4) -> MatchRecord:
    """A seeded match where seats 0 and 2 contribute to every hand, seat 1 is a bot and seat 3
    a person who sent nothing in time."""
    m = Match(LONGGANG.replace(hands_per_match=hands), [RandomPlayer(player_rng(b"chain", i)) for i in range(4)],
              seed=b"chain")
    while not m.over:
        mix = Mix((MINE, "bot", THEIRS, "timeout"), ("commit", "contribute 2", "contribute 0", "deal"))
        game = m.deal(mix)
        play(game, [m.players[p] for p in m.seats])
        m.finish(game)
    return m.record()


@pytest.fixture(scope="module")
def rec() -> MatchRecord:
    return _mixed_match()


def _edited(rec: MatchRecord, change: Callable[[dict[str, Any]], None]) -> MatchRecord:
    data = copy.deepcopy(rec.to_json())
    change(data)
    return MatchRecord.from_json(json.loads(json.dumps(data)))


def test_contributions_are_mixed_into_every_wall(rec: MatchRecord) -> None:
    assert verify(loads(rec.dumps())).hands == 4
    for h in rec.hands:
        assert h.algorithm == fair.FAIR_2
        assert h.contributions == (MINE, "bot", THEIRS, "timeout")
        assert h.timeline == ("commit", "contribute 2", "contribute 0", "deal", "reveal")
        seed = fair.wall_seed(h.seed, (MINE, None, THEIRS, None), h.index)
        assert seed == fair.wall_seed(h.seed, [MINE, None, THEIRS, None], h.index)
        assert h.wall == fair.shuffled_wall(seed, LONGGANG) != fair.shuffled_wall(h.seed, LONGGANG)
        assert h.dice == fair.dice(seed)
    data = json.loads(rec.dumps())["hands"][0]
    assert data["contributions"] == [MINE.hex(), "bot", THEIRS.hex(), "timeout"]


def test_the_mix_message_is_the_documented_bytes() -> None:
    msg = fair.mix_message((MINE, None, None, THEIRS), 7)
    assert len(msg) == 136
    assert msg == b"\x01" + MINE + bytes(33) + bytes(33) + b"\x01" + THEIRS + b"\x00\x00\x00\x07"
    with pytest.raises(fair.SeedError, match="32 bytes"):
        fair.mix_message((b"short", None, None, None), 0)


def test_a_changed_contribution_fails(rec: MatchRecord) -> None:
    other = bytes(32).hex()
    bad = _edited(rec, lambda d: d["hands"][1]["contributions"].__setitem__(0, other))
    with pytest.raises(VerifyError) as err:
        verify(bad)
    assert err.value.hand == 1  # the wall it gives is not the recorded one
    dropped = _edited(rec, lambda d: d["hands"][1]["contributions"].__setitem__(2, "timeout"))
    with pytest.raises(VerifyError, match=r"hand 2 \(hands\[1\]\): contributions and their events differ"):
        verify(dropped)


@pytest.mark.parametrize(("name", "change", "hand"), [
    ("removed", lambda d: (d["hands"].pop(1), [h.__setitem__("index", i) for i, h in enumerate(d["hands"])]), 1),
    ("reordered", lambda d: (d["hands"].insert(1, d["hands"].pop(2)),
                             [h.__setitem__("index", i) for i, h in enumerate(d["hands"])]), 1),
    ("replaced", lambda d: d["hands"].__setitem__(2, _other_hand_2()), 2),
])
def test_a_removed_reordered_or_replaced_hand_breaks_the_chain(
    rec: MatchRecord, name: str, change: Callable[[dict[str, Any]], None], hand: int
) -> None:
    bad = _edited(rec, change)
    with pytest.raises(VerifyError) as err:
        verify(bad)
    assert err.value.hand == hand
    assert "the chain is broken" in err.value.problem


def _other_hand_2() -> dict[str, Any]:
    """Hand 2 of another match on the same seeds (other players' choices before it)."""
    m = Match(LONGGANG.replace(hands_per_match=4), [RandomPlayer(player_rng(b"other", i)) for i in range(4)],
              seed=b"chain")
    while len(m.hands) < 3:
        mix = Mix((MINE, "bot", THEIRS, "timeout"), ("commit", "contribute 2", "contribute 0", "deal"))
        game = m.deal(mix)
        play(game, [m.players[p] for p in m.seats])
        m.finish(game)
    out: dict[str, Any] = m.hands[2].to_json()
    return out


def test_a_seed_that_does_not_match_its_commitment_fails(rec: MatchRecord) -> None:
    bad = _edited(rec, lambda d: d["hands"][2].__setitem__("seed", "ab" * 32))
    with pytest.raises(VerifyError, match=r"hand 3 \(hands\[2\]\): the revealed seed does not match the commitment"):
        verify(bad)


@pytest.mark.parametrize(("timeline", "says"), [
    (["commit", "contribute 2", "deal", "reveal", "contribute 0"], "a contribution arrived after the seed was revealed"),
    (["commit", "contribute 2", "deal", "contribute 0", "reveal"], "a contribution arrived after the deal"),
    (["contribute 2", "commit", "contribute 0", "deal", "reveal"], "the order of events"),
    (["commit", "contribute 2", "contribute 0", "reveal", "deal"], "the order of events"),
])
def test_a_contribution_out_of_order_fails(rec: MatchRecord, timeline: list[str], says: str) -> None:
    bad = _edited(rec, lambda d: d["hands"][0].__setitem__("timeline", timeline))
    with pytest.raises(VerifyError, match=rf"hand 1 \(hands\[0\]\): {says}"):
        verify(bad)


def test_a_bots_match_mixes_nothing_and_still_chains() -> None:
    m = Match(LONGGANG.replace(hands_per_match=2), [RandomPlayer(player_rng(b"b", i)) for i in range(4)], seed=b"b")
    rec = m.play()
    assert [h.contributions for h in rec.hands] == [("bot",) * 4] * 2
    assert rec.hands[1].prev == rec.hands[0].digest() and rec.hands[0].prev == fair.NO_PREV
