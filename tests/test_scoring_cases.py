"""Table-driven scoring cases written from docs/rules/longgang.md (expected figures worked out by
hand from the rules, one or more per fu item, tai item and limit hand)."""

from __future__ import annotations

import pytest

from caishen.notation import parse_hand, parse_tile
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.longgang.scoring import (
    FirstTurn,
    Limit,
    NotAWinError,
    ScoringError,
    WinBy,
    WinContext,
    score_hand,
    score_win,
)

E, S, W, N = 0, 1, 2, 3
R = LONGGANG
# wild "9s" with no 9s in the hand = no wild at all (L21.3 gives every such hand 1 tai)

# id, hand before the winning tile, winning tile, by, seat, wild, ruleset,
# expected (face fu, tai, total, limit or None), rule IDs that must be listed
WIN_CASES = [
    # --- L19 sets -------------------------------------------------------------------------
    ("L19.1-exposed-pong-simple", "[555m] 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (2, 1, 50, None), {"L19.1", "L21.3"}),
    ("L19.1-exposed-pong-terminal", "[111p] 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (4, 1, 50, None), {"L19.1"}),
    ("L19.1-concealed-pong-simple", "555m 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (4, 1, 50, None), {"L19.1"}),
    ("L19.1-concealed-pong-honour", "444z 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (8, 1, 60, None), {"L19.1"}),
    ("L19.1-exposed-kong-simple", "[5555m] 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (8, 1, 60, None), {"L19.1"}),
    ("L19.1-exposed-kong-honour", "[4444z] 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (16, 1, 80, None), {"L19.1"}),
    ("L19.2-added-kong-is-exposed", "<5555m> 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (8, 1, 60, None), {"L19.2"}),
    ("L19.1-concealed-kong-simple", "(5555m) 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (16, 1, 80, None), {"L19.1"}),
    ("L19.1-concealed-kong-terminal", "(9999p) 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (32, 1, 110, None), {"L19.1"}),
    ("L19.3-four-undeclared-is-concealed-pong", "5555m 67m 678p 345s 234s 8p", "8p", "discard", E, "9s", R, (4, 1, 50, None), {"L19.1"}),
    ("L19.5-pong-completed-on-discard-is-exposed", "55m 234m 678p 345s 567s 88p", "5m", "discard", E, "9s", R, (2, 1, 50, None), {"L19.5"}),
    ("L20.8-pong-completed-by-self-draw", "55m 234m 678p 345s 567s 88p", "5m", "self-draw", E, "9s", R, (6, 1, 60, None), {"L20.8", "L20.4"}),
    # --- L20 waits, self-draw, pairs, flowers -----------------------------------------------
    ("L20.5-closed-discard", "234m 68m 345p 567s 234s 99p", "7m", "discard", E, "9s", R, (2, 1, 50, None), {"L20.5"}),
    ("L20.5-closed-self-draw", "234m 68m 345p 567s 234s 99p", "7m", "self-draw", E, "9s", R, (4, 1, 50, None), {"L20.5", "L20.4"}),
    ("L20.9-4556-wins-5-is-closed", "4556m 234p 678p 345s 567s", "5m", "discard", E, "9s", R, (2, 1, 50, None), {"L20.5"}),
    ("L20.9-45567-wins-6-is-closed", "45567m 234p 678p 345s 99s", "6m", "discard", E, "9s", R, (2, 1, 50, None), {"L20.5"}),
    ("L20.9-closed-beats-single-self-draw", "4556m 234p 678p 345s 567s", "5m", "self-draw", E, "9s", R, (4, 1, 50, None), {"L20.5", "L20.4"}),
    ("L20.10-drawn-wild-reads-as-closed", "234m 68m 345p 567s 234s 99p", "5z", "self-draw", E, "5z", R.replace(has_white=True, has_flowers=False), (4, 0, 30, None), {"L20.5"}),
    ("L20.6-edge-discard-0", "12m 345p 567s 234s 678p 99p", "3m", "discard", E, "9s", R, (0, 1, 40, None), {"L20.6"}),
    ("L20.6-edge-switch-2", "12m 345p 567s 234s 678p 99p", "3m", "discard", E, "9s", R.replace(edge_single_wait_fu=True), (2, 1, 50, None), {"L20.6"}),
    ("L20.6-single-discard-0", "5p 234m 345p 567s 234s 678s", "5p", "discard", E, "9s", R, (0, 1, 40, None), set()),
    ("L20.6-single-self-draw-2", "5p 234m 345p 567s 234s 678s", "5p", "self-draw", E, "9s", R, (2, 1, 50, None), {"L20.4"}),
    ("L20.1-single-red-discard", "7z 234m 345p 567s 234s 678s", "7z", "discard", E, "9s", R, (2, 1, 50, None), {"L20.1"}),
    ("L20.7-single-red-self-draw-pair-only", "7z 234m 345p 567s 234s 678s", "7z", "self-draw", E, "9s", R, (2, 1, 50, None), {"L20.1", "L20.7"}),
    ("L20.7-switch-adds-self-draw", "7z 234m 345p 567s 234s 678s", "7z", "self-draw", E, "9s", R.replace(single_honor_pair_self_draw_fu=True), (4, 1, 50, None), {"L20.4"}),
    ("L20.1-seat-wind-pair-south", "22z 234m 345p 567s 234s 68p", "7p", "discard", S, "9s", R, (4, 1, 50, None), {"L20.1", "L20.5"}),
    ("L20.1-other-wind-pair-no-fu", "22z 234m 345p 567s 234s 68p", "7p", "discard", E, "9s", R, (2, 1, 50, None), {"L20.5"}),
    ("L20.1-green-pair", "66z 234m 345p 567s 234s 68p", "7p", "discard", W, "9s", R, (4, 1, 50, None), {"L20.1"}),
    ("L20.3-one-guest-flower", "[555m] 234m 678p 345s 567s 8p f2", "8p", "discard", E, "9s", R, (6, 1, 60, None), {"L20.3"}),
    ("L20.3-three-guest-flowers-no-tai", "555m 234m 678p 345s 567s 8p f134", "8p", "discard", S, "9s", R, (16, 1, 80, None), {"L20.3"}),
    ("L20.4-rob-kong-is-a-discard", "234m 68m 345p 567s 234s 99p", "7m", "rob-kong", E, "9s", R, (2, 1, 50, None), {"L20.5"}),
    ("L20.4-kong-replacement-is-self-draw", "234m 68m 345p 567s 234s 99p", "7m", "kong-replacement", E, "9s", R, (4, 1, 50, None), {"L20.4"}),
    ("L21.10-kong-replacement-tai-switch", "234m 68m 345p 567s 234s 99p", "7m", "kong-replacement", E, "9s", R.replace(kong_replacement_tai=True), (4, 2, 100, None), {"L21.10"}),
    ("L20.4-sea-floor-is-self-draw", "234m 68m 345p 567s 234s 99p", "7m", "sea-floor", E, "9s", R, (4, 1, 50, None), {"L20.4"}),
    ("L21.10-single-wait-tai-switch", "5p 234m 345p 567s 234s 678s", "5p", "discard", E, "9s", R.replace(single_wait_tai=True), (0, 2, 80, None), {"L21.10"}),
    # --- L21 tai ------------------------------------------------------------------------------
    ("L21.1-red-concealed", "777z 234m 678p 345s 567s 8p", "8p", "discard", E, "9s", R, (8, 2, 120, None), {"L21.1", "L21.3"}),
    ("L21.1-seat-wind-exposed-south", "[222z] 234m 678p 345s 567s 8p", "8p", "discard", S, "9s", R, (4, 2, 100, None), {"L21.1"}),
    ("L21.1-green-exposed-kong", "[6666z] 234m 678p 345s 567s 8p", "8p", "discard", N, "9s", R, (16, 2, 150, None), {"L21.1"}),
    ("L21.1-not-seat-wind-no-tai", "[222z] 234m 678p 345s 567s 8p", "8p", "discard", W, "9s", R, (4, 1, 50, None), set()),
    ("L21.2-two-true-wilds-best-arrangement", "234m 678p 345s 567s 88p 9s9s", "5m", "discard", E, "9s", R, (4, 1, 50, None), {"L21.2"}),
    ("L21.4-own-flower", "234m 678p 345s 567s 8p 55m f1", "8p", "discard", E, "9s", R, (4, 1, 50, None), {"L21.4"}),
    ("L21.7-four-flowers", "234m 678p 345s 567s 8p 55m f1234", "8p", "discard", E, "9s", R, (16, 2, 150, None), {"L21.7", "L20.3"}),
    ("L21.5-all-triplets", "[555m] [777p] 333s 888s 444z 2m", "2m", "discard", E, "9s", R, (20, 2, 160, None), {"L21.5"}),
    ("L21.6-half-flush", "123m 456m 78m 234m 444z 55m", "9m", "discard", E, "9s", R, (8, 2, 120, None), {"L21.6"}),
    ("L21.8-own-flower-and-one-flower-wild", "234m 678p 345s 567s 8p 5m f12", "8p", "discard", E, "f3", R, (4, 2, 100, None), {"L21.2", "L21.4"}),
    ("L21.8-two-flower-wilds-not-own", "234m 678p 345s 567s 8p 5m f24", "8p", "discard", E, "f3", R, (4, 1, 50, None), {"L21.2"}),
    ("L21.8-own-flower-flower-red-triplet", "7z 234m 678p 345s 567s 8p f12", "8p", "discard", E, "f3", R, (8, 3, 230, None), {"L21.1", "L21.2", "L21.4"}),
    ("L21.8-own-flower-and-red-pair", "77z 234m 678p 345s 567s 8p f1", "8p", "discard", E, "9s", R, (8, 2, 120, None), {"L21.1", "L21.4"}),
    ("L21.9-plain-hand", "23m 456m 79p 234s 678s 22z 5p", "1m", "discard", E, "5p", R, (0, 0, 20, None), {"L21.9"}),
    # --- L22 limits ---------------------------------------------------------------------------
    ("L22.2-bulldozer", "5p5p5p 234m 678p 345s 567s 8p", "9m", "self-draw", E, "5p", R, (None, None, 300, Limit.BULLDOZER), {"L22.2"}),
    ("L22.2-three-flower-wilds", "234m 678p 345s 567s 8p f124", "8p", "self-draw", E, "f3", R, (None, None, 300, Limit.BULLDOZER), {"L22.2"}),
    ("L22.5-full-flush-with-wild", "123m 456m 789m 234m 66m 8m 5p", "8m", "discard", E, "5p", R, (None, None, 300, Limit.FULL_FLUSH), {"L22.5"}),
    ("L22.6-big-four-winds", "111z 222z 333z 444z 234m 5m", "5m", "discard", E, "9s", R, (None, None, 300, Limit.BIG_FOUR_WINDS), {"L22.6"}),
    ("L22.6-small-four-winds", "111z 222z 333z 44z 234m 56p", "7p", "discard", E, "9s", R, (None, None, 300, Limit.SMALL_FOUR_WINDS), {"L22.6"}),
    ("L22.6-four-winds-two-wilds-in-winds", "111z 222z 333z 4z 5p5p 234m 8p", "8p", "discard", E, "5p", R, (None, None, 300, Limit.BIG_FOUR_WINDS), {"L22.6"}),
    ("L22.6-four-winds-one-wild-is-no-limit", "111z 222z 333z 4z 5p 234m 67p", "8p", "discard", E, "5p", R, (24, 1, 90, None), {"L21.1"}),
    ("L22.7-all-honours", "111z 222z 333z 444z 666z 7z", "7z", "discard", E, "9s", R, (None, None, 300, Limit.ALL_HONOURS), {"L22.7"}),
    ("L22.8-all-terminals", "111m 999m 111p 999p 111s 9s", "9s", "discard", E, "5p", R, (None, None, 300, Limit.ALL_TERMINALS), {"L22.8"}),
    ("L22.9-terminals-and-honours", "111m 999p 111s 444z 666z 9s", "9s", "discard", E, "5p", R, (None, None, 300, Limit.TERMINALS_AND_HONOURS), {"L22.9"}),
    ("L22.10-wild-meeting", "234m 678p 345s 567s 8p 5p5p f1", "8p", "discard", E, "5p", R, (None, None, 300, Limit.WILD_MEETING), {"L22.10"}),
    ("L22.10-spread-wilds-two-tai", "234m 678p 345s 567s 1m 5p5p f1", "9p", "discard", E, "5p", R, (8, 2, 120, None), {"L21.2", "L21.4"}),
    ("L22.1-counted-limit", "[555m] [777m] 333m 888m 444z 2m", "2m", "discard", E, "9s", R, (20, 3, 300, Limit.COUNTED), {"L22.1"}),
    ("L22.1-two-tai-at-300-is-no-limit", "(1111m) (9999p) 777z 678s 345m 5p", "5p", "discard", E, "9s", R, (72, 2, 300, None), {"L21.1"}),
    ("L22.11-eight-pairs-scored-normally", "11m 55m 99m 22p 88p 3s 77s 444z", "3s", "discard", E, "9s", R, (8, 1, 60, None), {"L19.1"}),
    ("L22.11-eight-pairs-limit-switch", "11m 55m 99m 22p 88p 3s 77s 444z", "3s", "discard", E, "9s", R.replace(eight_and_half_pairs_limit=True), (None, None, 300, Limit.EIGHT_PAIRS), {"L22.11"}),
]


@pytest.mark.parametrize(
    ("hand", "tile", "by", "seat", "wild", "ruleset", "expected", "rules"),
    [c[1:] for c in WIN_CASES],
    ids=[c[0] for c in WIN_CASES],
)
def test_win_case(hand, tile, by, seat, wild, ruleset, expected, rules):
    r = score_win(parse_hand(hand), WinContext(parse_tile(tile), WinBy(by), seat, E, parse_tile(wild)), ruleset)
    fu, tai, total, limit = expected
    assert r.total == total
    assert r.limit is limit
    if fu is not None:
        assert (r.fu, r.tai) == (fu, tai)
    listed = {i.rule for i in r.items}
    assert rules <= listed, f"missing {rules - listed}"
    # the result follows its own items (L23)
    assert r.fu == sum(i.value for i in r.items if i.unit == "fu")
    assert r.tai == sum(i.value for i in r.items if i.unit == "tai")
    assert r.bonus_tai == (3 if limit is not None else min(r.tai, 3))


def test_l22_3_heavenly_and_l22_4_earthly():
    hand = parse_hand("234m 68m 345p 567s 234s 99p")
    r = score_win(hand, WinContext(parse_tile("7m"), WinBy.SELF_DRAW, E, E, None, FirstTurn.HEAVENLY))
    assert r.limit is Limit.HEAVENLY and r.total == 300
    r = score_win(hand, WinContext(parse_tile("7m"), WinBy.DISCARD, S, E, None, FirstTurn.EARTHLY))
    assert r.limit is Limit.EARTHLY and r.total == 300


@pytest.mark.parametrize(
    ("ctx", "message", "code", "rule"),
    [
        (WinContext(6, WinBy.SELF_DRAW, S, E, None, FirstTurn.HEAVENLY), "天胡", "first-turn", "L15.1"),
        (WinContext(6, WinBy.SELF_DRAW, S, E, None, FirstTurn.EARTHLY), "地胡", "first-turn", "L15.1"),
        (WinContext(6, WinBy.DISCARD, S, E, None, FirstTurn.HUMAN), "人胡", "switch-off", "L15"),
        (WinContext(6, WinBy.DISCARD, S, E, 31), "not in play", "not-in-play", "L4"),
        (WinContext(6, WinBy.DISCARD, S, E, 17), "only 3 can be held", "too-many-copies", "L4"),
        (WinContext(6, WinBy.DISCARD, 4, E), "seat and dealer", "bad-seat", None),
    ],
)
def test_wrong_context_is_refused(ctx, message, code, rule):
    hand = parse_hand("9999p 234m 68m 345s 567s" if message.startswith("only") else "234m 68m 345p 567s 234s 99p")
    with pytest.raises(ScoringError, match=message) as err:
        score_win(hand, ctx)
    assert isinstance(err.value, ValueError)
    assert (err.value.code, err.value.rule) == (code, rule)


def test_not_a_win_and_wrong_sizes():
    with pytest.raises(NotAWinError, match="not a winning hand") as err:
        score_win(parse_hand("234m 68m 345p 567s 234s 99p"), WinContext(parse_tile("9m")))
    assert (err.value.code, err.value.rule) == ("not-a-win", "L13")
    with pytest.raises(ScoringError, match="17 tiles") as err:
        score_win(parse_hand("234m 678m 345p 567s 234s 99p"), WinContext(parse_tile("9m")))
    assert (err.value.code, err.value.rule) == ("hand-size", "L13")
    with pytest.raises(ScoringError, match="wild") as err:
        score_win(parse_hand("234m 68m 345p 567s 234s 9p 5p"), WinContext(parse_tile("5p"), indicator=parse_tile("5p")))
    assert (err.value.code, err.value.rule) == ("wild-not-discarded", "L8")


# --- losers (L23) ------------------------------------------------------------------------------

LOSER_CASES = [
    ("L23.4-concealed-terminal-pong", "111m 24m 68m 13p 57p 9p 24s 68s", S, "9s", R, (8, 0, 10)),
    ("L23.4-red-pong-and-pong", "[777z] 999p 24m 68m 13s 57s 9s 1z", S, "5p", R, (12, 1, 30)),
    ("L23.5-one-real-two-wilds", "{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 7z 4p4p 3m", E, "4p", R, (8, 2, 40)),
    ("L23.6-wild-and-single-red-is-nothing", "{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 7z 3m 8s f1", E, "4p", R, (0, 0, 0)),
    ("L23.6-real-red-pair", "{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 77z 3m 8s", E, "4p", R, (2, 0, 10)),
    ("L23.8-one-pair-only", "{1m2m3m} {1s2s3s} {1p2p3p} 77z 66z 3m 8s 9p", E, "4p", R, (2, 0, 10)),
    ("L21.7-loser-four-flowers", "{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 55m 8s f1234", E, "9s", R, (16, 2, 70)),
    ("L21.7-loser-four-flowers-switch-1", "{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 55m 8s f1234", E, "9s", R.replace(loser_four_flowers_tai=1), (16, 1, 40)),
    ("L23.5-void-own-flower-no-four-flowers", "{1m2m3m} {1s2s3s} {1p2p3p} {7p8p9p} 5m 8s 2z f1234", E, "9s", R, (12, 0, 20)),
    ("L23.7-no-all-triplets-or-half-flush-for-loser", "[555m] [777m] 333m 888m 44z 22m", E, "9s", R, (12, 0, 20)),
    ("L23.7-loser-green-kong", "[6666z] 24m 68m 13p 57p 9p 24s 68s", E, "9s", R, (16, 1, 40)),
    ("L23.5-two-wilds-two-reals-same-kind", "{1m2m3m} {1s2s3s} {1p2p3p} 55m 5p5p 7s 8s 3p", E, "5p", R, (4, 1, 10)),
    ("L23.5-two-wilds-best-partner", "{1m2m3m} {1s2s3s} {1p2p3p} 55m 5p5p 7s 8s 9m", E, "5p", R, (8, 1, 20)),
]


@pytest.mark.parametrize(("hand", "seat", "wild", "ruleset", "expected"), [c[1:] for c in LOSER_CASES], ids=[c[0] for c in LOSER_CASES])
def test_loser_case(hand, seat, wild, ruleset, expected):
    r = score_hand(parse_hand(hand), seat, E, parse_tile(wild), ruleset)
    assert (r.fu, r.tai, r.total) == expected
    assert r.limit is None and r.base == 0


def test_l16_2_wild_standing_for_itself_is_noted():
    from caishen.shapes.analysis import arrangements
    from caishen.variants.longgang.scoring import score_arrangement
    from caishen.variants.longgang.wilds import wild_kinds

    hand = parse_hand("234m 678p 345s 78s 9s 123m 8p")
    full = hand.with_tile(parse_tile("8p"))
    ctx = WinContext(parse_tile("8p"), WinBy.DISCARD, E, E, parse_tile("9s"))
    arrs = [a for a in arrangements(full, R, wild_kinds(ctx.indicator, E, R))
            if any(w == x for g in a.groups for w, x in g.wilds)]
    assert arrs
    r = score_arrangement(full, arrs[0], ctx)
    assert "L16.2" in {i.rule for i in r.items}
    assert (r.fu, r.tai, r.total) == (0, 0, 20)


def test_l16_1_wild_single_wait_is_noted():
    # hand left with a single wild (财神单吊, L16.1): wins on any tile
    hand = parse_hand("[222m] [444p] [666s] [888m] [333s] 5p")
    r = score_win(hand, WinContext(parse_tile("1z"), WinBy.DISCARD, E, E, parse_tile("5p")))
    assert "L16.1" in {i.rule for i in r.items}
    # East pair from East + wild: seat wind pair 2 (wild + single counts for the winner, L23.6)
    assert (r.fu, r.tai, r.total) == (5 * 2 + 2, 1, 70)  # five exposed pongs, pair; 对对胡
