"""legal_actions against a slow, obviously-correct reference built from the rules (issue 4
item 2), over random play: own turns, claims on every discard, robbing every added kong."""

from __future__ import annotations

import random

from caishen.engine.actions import ADDED_KONGS, CHOWS, CONCEALED_KONGS, DISCARDS, EXPOSED_KONGS, PONGS
from caishen.engine.game import PASS, SEATS, WIN, Action, ActionKind, Game, Phase
from caishen.hand import MeldKind
from caishen.shapes.analysis import is_win
from caishen.tiles import NUM_NON_FLOWER, NUM_SUITED
from caishen.variants.longgang.rules import LONGGANG, Ruleset


def natural(g: Game, seat: int) -> list[int]:
    """Kinds the seat holds that are neither wild nor flowers: what it may discard (L8)."""
    c = g.counts(seat)
    return [k for k in range(NUM_NON_FLOWER) if c[k] and k not in g.wilds[seat]]


def true_wilds(g: Game, seat: int) -> int:
    return sum(1 for k in g.hand(seat).concealed if k in g.wilds[seat])


def ref_turn(g: Game, seat: int, rs: Ruleset) -> set[Action]:
    c = g.counts(seat)
    ponged = {m.tiles[0] for m in g.melds(seat) if m.kind is MeldKind.PONG}
    if g._kong_round:  # the opening concealed-kong round (L9): the fours offered, or pass
        return {CONCEALED_KONGS[k] for k in natural(g, seat) if c[k] == 4 and g._seats[seat].kong_offer >> k & 1} | {PASS}
    if g._claimed:  # after a chow or pong: discard only, not the claimed tile nor its twin (L9),
        # nor the fourth of an earlier pong (小明杠: "若不補槓，則不能打出這張牌")
        return {DISCARDS[k] for k in natural(g, seat) if k not in g._forbid and k not in ponged}
    out: set[Action] = set()
    if is_win(g.hand(seat), rs, g.wilds[seat]):
        out.add(WIN)
    for k in natural(g, seat):
        if c[k] == 4:
            out.add(CONCEALED_KONGS[k])
        if k in ponged:
            out.add(ADDED_KONGS[k])  # the fourth of one's pong is konged, never discarded
        else:
            out.add(DISCARDS[k])
    return out


def can_discard_after(g: Game, seat: int, used: list[int], forbid: set[int]) -> bool:
    forbid = forbid | {m.tiles[0] for m in g.melds(seat) if m.kind is MeldKind.PONG}  # 小明杠 (L9)
    c = list(g.counts(seat))
    for k in used:
        c[k] -= 1
    return any(c[k] and k not in g.wilds[seat] and k not in forbid for k in range(NUM_NON_FLOWER))


def ref_win_on(g: Game, seat: int, tile: int, robbing: bool, rs: Ruleset) -> bool:
    if g._seats[seat].pass_win or (tile == g._seats[seat].last_discard and not g._seats[seat].dudiao):  # 獨吊 exception
        return False  # 过水, own discard of this go-round (L11)
    h = g.hand(seat)
    c = g.counts(seat)
    if sum(c) == 1 and sum(c[k] for k in g.wilds[seat]) == 1:  # a single wild left (L16)
        if not rs.wild_single_wait_any_tile or (robbing and not rs.rob_kong_with_wild_pair):
            return False
    if h.all_tiles().count(tile) >= 4:
        return False
    return is_win(h.with_tile(tile), rs, g.wilds[seat])


def ref_claims(g: Game, seat: int, tile: int, discarder: int, rs: Ruleset) -> set[Action]:
    c = g.counts(seat)
    out: set[Action] = set()
    bulldozer = rs.bulldozer and true_wilds(g, seat) >= rs.bulldozer_wilds
    if bulldozer or ref_win_on(g, seat, tile, False, rs):
        out.add(WIN)
    if c[tile] == 3:
        out.add(EXPOSED_KONGS[tile])
    if c[tile] >= 2 and not g._seats[seat].pong_ban >> tile & 1 and can_discard_after(g, seat, [tile, tile], {tile}):
        out.add(PONGS[tile])
    if rs.allow_chow and seat == (discarder + 1) % SEATS and tile < NUM_SUITED and tile != g._seats[seat].last_discard:
        for low in range(tile - 2, tile + 1):
            if low < 0 or low // 9 != tile // 9 or (low + 2) // 9 != tile // 9:
                continue
            others = [x for x in (low, low + 1, low + 2) if x != tile]
            if all(c[x] and x not in g.wilds[seat] for x in others):
                twin = {low + 3} if tile == low and low % 9 <= 5 else (
                    {low - 1} if tile == low + 2 and low % 9 >= 1 else set())
                if can_discard_after(g, seat, others, {tile} | twin):
                    out.add(CHOWS[(tile, low)])
    if out:
        out.add(PASS)
    return out


def test_legal_actions_match_the_reference_in_random_play() -> None:
    for rs in (LONGGANG, LONGGANG.replace(wild_single_wait_any_tile=False, rob_kong_with_wild_pair=False)):
        play_against_reference(rs)


def play_against_reference(rs: Ruleset) -> None:
    rng = random.Random(11)
    turns = claims = robs = 0
    for i in range(400):
        g = Game.from_seed(b"legal-%d" % i, rs, dealer=i % 4)
        while not g.is_over:
            movers = g.to_move()
            s = movers[rng.randrange(len(movers))]
            acts = g.legal_actions(s)
            assert len(set(acts)) == len(acts)
            if g.phase is Phase.TURN:
                assert set(acts) == ref_turn(g, s, rs)
                turns += 1
            a = acts[rng.randrange(len(acts))]
            expect: dict[int, set[Action]] | None = None
            if a.kind is ActionKind.DISCARD and not any(st.pending_flowers for st in g._seats):
                expect = {o: ref_claims(g, o, a.tile, s, rs) for o in range(SEATS) if o != s}
            elif a.kind is ActionKind.ADDED_KONG:
                expect = {o: ({WIN, PASS} if ref_win_on(g, o, a.tile, True, rs) else set())
                          for o in range(SEATS) if o != s}
            g.step(s, a)
            if expect is not None:
                asked = {o: set(opts) for o, opts in g._options.items()}
                want = {o: v for o, v in expect.items() if v}
                robs += a.kind is ActionKind.ADDED_KONG  # added kongs checked
                if g.phase in (Phase.CLAIM, Phase.ROB) and g.current == s:
                    assert asked == want
                    claims += a.kind is ActionKind.DISCARD
                else:
                    assert want == {}
    assert turns > 5000 and claims > 500 and robs > 0
