"""The bots: ``random``, ``greedy`` and ``strong``, all behind :class:`Bot`.

A bot sees one seat's observation and the legal actions, and returns one of those
actions. Every bot takes a win whenever one is offered. Decisions use only the
observation (see :mod:`caishen.bots.view`); each bot's own randomness comes from a
``random.Random`` seeded by whoever builds it (the simulator seeds it per game).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import Final

from caishen.bots.shape import (
    ADD,
    ALL_KINDS,
    HALF_SPLIT,
    HAND_KEY_SHIFT,
    RESULT_SHIFT,
    SHANTEN_BITS,
    Context,
    context,
    held_kinds,
    keys_of,
    shanten_counts,
)
from caishen.bots.view import View, from_observation
from caishen.engine.actions import Action, ActionKind
from caishen.engine.observation import Observation
from caishen.hand import Hand, Meld, MeldKind

# the analyser's own rule for which wilds are 正财神 (L5), so both count them alike
from caishen.shapes.analysis import flower_wilds
from caishen.tiles import (
    GREEN,
    NUM_NON_FLOWER,
    NUM_SUITED,
    RED,
    is_honor,
    is_terminal,
    seat_wind,
    wind_of,
)
from caishen.variants.base import VariantRules
from caishen.variants.longgang.rules import LONGGANG, Ruleset
from caishen.variants.longgang.scoring import ScoringError, WinBy, WinContext, win_value

# ---------------------------------------------------------------- hand shape helpers


@dataclass(slots=True)
class Shape:
    """A hand as the evaluator sees it: counts of the non-wild concealed tiles (and their
    ``lo`` and ``hi`` keys, see :mod:`caishen.bots.shape`), the wilds held (财神 + 坐花, L8),
    the 正财神 among them, and the declared melds."""

    counts: list[int]
    wilds: int
    true_wilds: int
    melds: int
    lo: int
    hi: int


def shape_of(view: View) -> Shape:
    """The evaluator's shape of a view's hand. Wilds and 正财神 are counted as the analyser
    counts them (:func:`caishen.shapes.analysis.shanten`, L5, L8): with a flower indicator
    the 正财神 are the wild flowers held, else the concealed tiles of the wild kinds."""
    counts = [0] * NUM_NON_FLOWER
    wild = lo = hi = 0
    wilds = view.wilds
    for k in view.hand.concealed:
        if k in wilds:
            wild += 1
        else:
            counts[k] += 1
            if k < HALF_SPLIT:
                lo += ADD[k]
            else:
                hi += ADD[k]
    flowers = 0
    if view.hand.flowers:
        flowers = sum(1 for f in view.hand.flowers if f in wilds)
        if flower_wilds(wilds):
            true_wild = flowers
        else:  # the own flower counts toward 推土机 only where the ruleset says so (L8 金乡灵溪)
            rs = view.ruleset
            true_wild = wild + flowers if rs.bulldozer and rs.bulldozer_own_flower else wild
    else:
        true_wild = 0 if flower_wilds(wilds) else wild
    return Shape(counts, wild + flowers, true_wild, len(view.hand.melds), lo, hi)


# Kinds within two of a held kind in its suit (for ``_near``): bit k set where k - 1, k - 2,
# k + 1, k + 2 is in the same suit.
_FROM_BELOW_1 = sum(1 << k for k in range(NUM_SUITED) if k % 9 >= 1)
_FROM_BELOW_2 = sum(1 << k for k in range(NUM_SUITED) if k % 9 >= 2)
_FROM_ABOVE_1 = sum(1 << k for k in range(NUM_SUITED) if k % 9 <= 7)
_FROM_ABOVE_2 = sum(1 << k for k in range(NUM_SUITED) if k % 9 <= 6)


def _near(held: int) -> int:
    """Kinds that can join a held tile in a set: held, or within 2 in its suit (a mask)."""
    return (held | (held << 1 & _FROM_BELOW_1) | (held << 2 & _FROM_BELOW_2)
            | (held >> 1 & _FROM_ABOVE_1) | (held >> 2 & _FROM_ABOVE_2))


_KIND_BITS: Final = tuple(1 << k for k in range(NUM_NON_FLOWER))


def _plus(lo: int, hi: int, k: int, n: int = 1) -> tuple[int, int]:
    """The keys of a hand with ``n`` more tiles of kind ``k`` (``n`` < 0: fewer)."""
    if k < HALF_SPLIT:
        return lo + n * ADD[k], hi
    return lo, hi + n * ADD[k]


def _bits(mask: int) -> list[int]:
    """The kinds of a mask, lowest first."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class Evaluator:
    """Shanten and improving-tile counts for one view. Hands are the ``(lo, hi)`` keys of
    :mod:`caishen.bots.shape`; results are cached there, per hand and context."""

    def __init__(self, view: View) -> None:
        self.view = view
        rs = view.ruleset
        self.sets_needed = sets_needed = rs.sets_needed
        self.pairs_form = pairs_form = rs.eight_and_half_pairs and rs.hand_size == 16
        self.bulldozer = bulldozer = rs.bulldozer_wilds if rs.bulldozer else 0
        self.shape = shape = shape_of(view)
        self.lo = shape.lo
        self.hi = shape.hi
        unseen = self.unseen = view.unseen()
        # Unseen copies of wild kinds: drawing one always helps (counting wilds).
        unseen_wilds = 0
        wild_mask = 0
        for k in view.wilds:
            if k < NUM_NON_FLOWER:
                unseen_wilds += unseen[k]
                wild_mask |= 1 << k
            elif k not in view.hand.flowers:
                for laid in view.flowers:
                    if k in laid:
                        break
                else:
                    unseen_wilds += 1
        self.unseen_wilds = unseen_wilds
        # Kinds worth drawing: unseen copies left, not wild.
        self.drawable = sum(compress(_KIND_BITS, unseen)) & ~wild_mask
        self._at_least: tuple[int, int, int] | None = None
        # Enough 正财神 is complete whatever else is held (推土机, L8).
        self.complete = bool(bulldozer) and shape.true_wilds >= bulldozer
        self._melds = melds = shape.melds
        self._own = context(sets_needed - melds, shape.wilds, pairs_form and not melds)
        self._base = -1
        self._outs_of: dict[int, int] = {}

    def context(self, melds: int) -> Context:
        """The shapes of hands with ``melds`` declared melds and this view's wilds."""
        if melds == self._melds:
            return self._own
        return context(self.sets_needed - melds, self.shape.wilds, self.pairs_form and melds == 0)

    def better(self, lo: int, hi: int, melds: int) -> int:
        """The kinds whose draw lowers the shanten of the hand ``(lo, hi)`` with ``melds``
        declared melds and this view's wilds (推土机 not counted), with that shanten: see
        :data:`caishen.bots.shape.RESULT_SHIFT`."""
        return (self._own if melds == self._melds else self.context(melds)).better(lo, hi)

    def keep(self, lo: int, hi: int, melds: int) -> int:
        """The held kinds whose discard keeps that shanten, with it (as :meth:`better`)."""
        return (self._own if melds == self._melds else self.context(melds)).keep(lo, hi)

    def discard_shanten(self, t: int) -> int:
        """Shanten of this view's hand after discarding ``t`` (held), 推土机 counted: a
        discard lowers the cover by at most one tile, so it keeps the shanten or adds one."""
        shanten, keep = self.discard_shantens()
        return shanten if keep >> t & 1 else shanten + 1

    def discard_shantens(self) -> tuple[int, int]:
        """:meth:`discard_shanten` of every discard at once: the shanten after a discard
        that keeps it, and the mask of the kinds whose discard keeps it (every other adds
        one)."""
        if self.complete:
            return -1, ALL_KINDS
        base = self._base
        if base < 0:
            base = self._base = self._own.keep(self.lo, self.hi)
        return (base & SHANTEN_BITS) - 1, base >> RESULT_SHIFT

    def discard_outs(self, t: int) -> int:
        """:meth:`outs_of` the hand after discarding ``t``."""
        if self.complete:
            return 0
        return self._outs(self._own.changed_better(self.lo, self.hi, t, -1))

    def without(self, k: int, n: int = 1) -> tuple[int, int]:
        """The keys of this view's hand less ``n`` tiles of kind ``k``."""
        return _plus(self.lo, self.hi, k, -n)

    def shanten_of(self, lo: int, hi: int, melds: int) -> int:
        """Shanten of the hand ``(lo, hi)`` with ``melds`` declared melds, 推土机 counted."""
        if self.complete:
            return -1
        return (self._own if melds == self._melds else self.context(melds)).shanten(lo, hi)

    def shanten(self, counts: list[int], melds: int, wilds: int | None = None, true_wilds: int | None = None) -> int:
        if wilds is None and true_wilds is None:
            lo, hi = keys_of(counts)
            return self.shanten_of(lo, hi, melds)
        w = self.shape.wilds if wilds is None else wilds
        tw = self.shape.true_wilds if true_wilds is None else true_wilds
        return shanten_counts(counts, melds, w, self.sets_needed, self.pairs_form, tw, self.bulldozer)

    def outs_of(self, lo: int, hi: int, melds: int) -> int:
        """Unseen tiles whose draw lowers the shanten of the hand ``(lo, hi)`` (one tile
        short of a full one), wild copies included; 0 for a complete hand."""
        if self.complete:
            return 0
        # the strong bot's look-ahead meets the same hands from different discards and draws
        key = (lo << HAND_KEY_SHIFT | hi) << 3 | melds
        got = self._outs_of.get(key)
        if got is None:
            got = self._outs_of[key] = self._outs(self.better(lo, hi, melds))
        return got

    def _outs(self, better: int) -> int:
        """The unseen tiles of a :meth:`better` answer's kinds, wild copies included."""
        if not better & SHANTEN_BITS:  # complete
            return 0
        m = better >> RESULT_SHIFT & self.drawable
        at_least = self._at_least
        if at_least is None:
            at_least = self._at_least = self._unseen_masks()
        return (self.unseen_wilds + m.bit_count() + (m & at_least[0]).bit_count()
                + (m & at_least[1]).bit_count() + (m & at_least[2]).bit_count())

    def _unseen_masks(self) -> tuple[int, int, int]:
        """The kinds with at least 2, 3 and 4 unseen copies: the unseen copies of the kinds
        of a drawable mask are its kinds counted in it and in each of these."""
        by_count = [0, 0, 0, 0, 0]
        for k, u in enumerate(self.unseen):
            by_count[u] |= 1 << k
        four = by_count[4]
        three = by_count[3] | four
        return by_count[2] | three, three, four

    def improving(self, counts: list[int], melds: int, current: int) -> int:
        """Unseen tiles whose draw lowers the shanten of ``counts`` (a hand one tile short
        of a full one, at shanten ``current``), wild copies included."""
        if current < 0:
            return 0
        lo, hi = keys_of(counts)
        return self.outs_of(lo, hi, melds)

    def ready_quality_of(self, lo: int, hi: int, melds: int) -> int:
        """For a hand one step from ready (shanten 1), sum over the draws that make it
        ready of (unseen copies x winning tiles after the best discard): a two-step look
        ahead that prefers the draws leading to wide waits."""
        if self.complete:
            return 0
        total = 0
        best_wild = 0
        unseen = self.unseen
        ctx = self._own if melds == self._melds else self.context(melds)
        held = held_kinds(lo, hi)
        # from shanten 1 the draws that make the hand ready are the ones that lower it
        better = ctx.better(lo, hi)
        kinds = _near(held) & self.drawable & (better >> RESULT_SHIFT if better & SHANTEN_BITS == 2 else ALL_KINDS)
        # the hands after a draw and a discard recur from discard to discard: outs_of, inlined
        # with its memo and bit loops (calling it and _bits here costs the strong bot 4%)
        memo = self._outs_of
        while kinds:
            low = kinds & -kinds
            kinds ^= low
            k = low.bit_length() - 1
            h2 = ctx.changed_keep(lo, hi, k, 1)
            if h2 & SHANTEN_BITS != 1:  # not ready
                continue
            lo2, hi2 = (lo + ADD[k], hi) if k < HALF_SPLIT else (lo, hi + ADD[k])
            best = 0
            # discards that keep it ready; not the tile just drawn unless another is held
            keep = h2 >> RESULT_SHIFT if held & low else h2 >> RESULT_SHIFT & ~low
            while keep:
                dlow = keep & -keep
                keep ^= dlow
                d = dlow.bit_length() - 1
                lo3, hi3 = (lo2 - ADD[d], hi2) if d < HALF_SPLIT else (lo2, hi2 - ADD[d])
                key = (lo3 << HAND_KEY_SHIFT | hi3) << 3 | melds
                outs = memo.get(key)
                if outs is None:
                    outs = memo[key] = self._outs(ctx.better(lo3, hi3))
                if outs > best:
                    best = outs
            total += unseen[k] * best
            if best > best_wild:
                best_wild = best
        return total + self.unseen_wilds * best_wild

    def ready_quality(self, counts: list[int], melds: int) -> int:
        lo, hi = keys_of(counts)
        return self.ready_quality_of(lo, hi, melds)


def _pairs_or_more(counts: list[int]) -> int:
    """Kinds held at least twice (``counts``: the 34 non-flower counts)."""
    return NUM_NON_FLOWER - counts.count(0) - counts.count(1)


Tally = tuple[int, int, int, int, int]
"""What the strong bot's plans read from a hand: the tiles of man, pin and sou, the honours,
and the kinds held at least twice, in the concealed counts and the declared melds (3 tiles
each; a pong or kong is a kind held twice or more)."""


def _tally(counts: list[int], melds: tuple[Meld, ...]) -> Tally:
    suits = [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27]), sum(counts[27:NUM_NON_FLOWER])]
    pairs = _pairs_or_more(counts)
    for m in melds:
        suits[m.tile // 9 if m.tile < NUM_SUITED else 3] += 3
        if m.kind != MeldKind.CHOW:
            pairs += 1
    return suits[0], suits[1], suits[2], suits[3], pairs


def _tally_without(tally: Tally, t: int, held: int) -> Tally:
    """The :class:`Tally` of a hand less one tile of kind ``t``, held ``held`` times before."""
    m, p, s, z, pairs = tally
    if held == 2:
        pairs -= 1
    if t < 9:
        return m - 1, p, s, z, pairs
    if t < 18:
        return m, p - 1, s, z, pairs
    if t < NUM_SUITED:
        return m, p, s - 1, z, pairs
    return m, p, s, z - 1, pairs


def _find(legal: Sequence[Action], kind: ActionKind) -> list[Action]:
    return [a for a in legal if a.kind is kind]


_WIN: Final = ActionKind.WIN
_DISCARD: Final = ActionKind.DISCARD


def _discard_order_key(k: int) -> int:
    """Tie-break: discard honours first, then terminals, then 2/8, then middle tiles."""
    if is_honor(k):
        return 0
    if is_terminal(k):
        return 1
    n = k % 9
    return 2 if n in (1, 7) else 3


# 3 - _discard_order_key(k) per kind, the tie-break's weight.
_ORDER: Final = tuple(3 - _discard_order_key(k) for k in range(NUM_NON_FLOWER))


# ---------------------------------------------------------------- bots

SHANTEN_COST = 2.2  # log of the slow-down of one more step of shanten (strong bot)
LN2 = math.log(2)
FLUSH_NEAR = 2  # strong bot: chase a flush with at most this many tiles off its suit
PONGS_NEAR = 6  # ... 对对胡 with at least this many pairs/triplets
PLAN_WEIGHT = 1.0  # strong bot: weight of the value plans against speed (tuned by simulation)


# Chips a win on a discard would bring, per (hand before the win, seat, dealer, indicator,
# ruleset) and then per winning tile; None where scoring refuses it. A ready hand is scored
# again on every turn it stays ready, so the strong bot keeps these (all cleared at
# WIN_CHIPS_CACHE winning tiles; about 0.26 kB each, 5 MB at the limit).
WIN_CHIPS_CACHE = 20_000
_win_chips_kept: Final = [WIN_CHIPS_CACHE]  # the limit in force (shape.set_cache_share)


def set_win_chips_share(share: float) -> None:
    """Keep the chips of a win to ``share`` of WIN_CHIPS_CACHE (cleared if past it)."""
    _win_chips_kept[0] = max(64, int(WIN_CHIPS_CACHE * share))
    if _win_chips_size[0] >= _win_chips_kept[0]:
        _win_chips.clear()
        _win_chips_size[0] = 0
_win_chips: dict[tuple[Hand, int, int, int | None, Ruleset], dict[int, float | None]] = {}
_win_chips_size = [0]


class GreedyBot:
    """Minimises shanten, then maximises the number of unseen tiles that would lower it
    (wilds counted). Claims a pong or chow only when it lowers the shanten, a kong when it
    does not raise it. Always wins when it can; never declares a drawn hand (叫和局, L17):
    it plays on."""

    name = "greedy"
    observes = True

    def __init__(self, rng: random.Random | None = None, ruleset: VariantRules = LONGGANG) -> None:
        self.rng = rng or random.Random(0)
        self.ruleset = ruleset

    def act(self, observation: Observation) -> Action:
        legal_actions = observation.legal_actions
        if len(legal_actions) == 1:
            return legal_actions[0]
        own_turn = False
        for a in legal_actions:
            kind = a.kind
            if kind is _WIN:
                return a
            if kind is _DISCARD:
                own_turn = True
        ev = Evaluator(from_observation(observation, self.ruleset))
        if own_turn:
            return self.own_turn(ev, legal_actions)
        return self.claim(ev, legal_actions)

    # -- own turn: discard or kong
    def rank_discards(self, ev: Evaluator, tiles: Sequence[int]) -> list[tuple[float, int]]:
        """(score, tile) for each distinct discard, best first."""
        counts = ev.shape.counts
        shanten, keep = ev.discard_shantens()
        scored = [(shanten if keep >> t & 1 else shanten + 1, t) for t in sorted(set(tiles)) if counts[t]]
        if not scored:
            return []
        best = min(s for s, _ in scored)
        out: list[tuple[float, int]] = []
        for s, t in scored:
            score = -100.0 * s
            if s == best:
                # among the best shanten: the most improving tiles (wilds counted)
                score += ev.discard_outs(t)
            out.append((score + 0.01 * _ORDER[t], t))
        out.sort(key=itemgetter(0), reverse=True)  # stable: equal scores keep the tile order
        return out

    def own_turn(self, ev: Evaluator, legal: Sequence[Action]) -> Action:
        discards = _find(legal, ActionKind.DISCARD)
        return self.own_turn_ranked(ev, legal, discards, self.rank_discards(ev, [a.tile for a in discards]))

    def own_turn_ranked(self, ev: Evaluator, legal: Sequence[Action], discards: list[Action],
                        ranked: list[tuple[float, int]]) -> Action:
        """:meth:`own_turn` with the discards already ranked by :meth:`rank_discards`."""
        if not ranked:
            return discards[0]
        sh = ev.shape
        best_tile = ranked[0][1]
        counts = sh.counts
        best_s = ev.discard_shanten(best_tile)
        for a in legal:
            kind = a.kind
            if kind is _DISCARD:
                continue
            if kind is ActionKind.CONCEALED_KONG and counts[a.tile] >= 4:
                if ev.shanten_of(*ev.without(a.tile, 4), sh.melds + 1) <= best_s:
                    return a
            elif kind is ActionKind.ADDED_KONG and counts[a.tile] >= 1:
                if ev.discard_shanten(a.tile) <= best_s:
                    return a
        for a in discards:
            if a.tile == best_tile:
                return a
        return discards[0]

    # -- claims on another seat's discard
    def claim_result(self, ev: Evaluator, a: Action) -> int | None:
        """Shanten after making claim ``a`` (and, for a pong or chow, the best discard); None
        if the claim is impossible on these counts."""
        sh = ev.shape
        counts = sh.counts
        tile = a.tile
        kind = a.kind
        melds = sh.melds + 1
        if kind is ActionKind.EXPOSED_KONG:
            if counts[tile] < 3:
                return None
            return ev.shanten_of(*ev.without(tile, 3), melds)
        held = sum(compress(_KIND_BITS, counts))  # the kinds left to discard after the claim
        if kind is ActionKind.PONG:
            if counts[tile] < 2:
                return None
            lo, hi = ev.without(tile, 2)
            if counts[tile] == 2:
                held ^= 1 << tile
            banned = 1 << tile
        elif kind is ActionKind.CHOW:
            low = a.chow_low
            lo, hi = ev.lo, ev.hi
            for k in (low, low + 1, low + 2):
                if k == tile:
                    continue
                if counts[k] < 1:
                    return None
                lo, hi = _plus(lo, hi, k, -1)
                if counts[k] == 1:
                    held ^= 1 << k
            banned = 1 << tile
            # L9: nor the tile that would make the same sequence (食替).
            if tile == low and low % 9 <= 5:
                banned |= 1 << (low + 3)
            if tile == low + 2 and low % 9 >= 1:
                banned |= 1 << (low - 1)
        else:
            return None
        allowed = held & ~banned
        if not allowed:
            return None
        if ev.complete:
            return -1
        # The best discard after the claim: a discard keeps the shanten or adds one (as in
        # Evaluator.discard_shanten), so one look at the kinds that keep it is enough.
        got = ev.keep(lo, hi, melds)
        return (got & SHANTEN_BITS) - 1 + (0 if got >> RESULT_SHIFT & allowed else 1)

    def claim(self, ev: Evaluator, legal: Sequence[Action]) -> Action:
        sh = ev.shape
        s0 = ev.shanten_of(ev.lo, ev.hi, sh.melds)
        best: tuple[float, Action] | None = None
        for a in legal:
            if a.kind not in (ActionKind.EXPOSED_KONG, ActionKind.PONG, ActionKind.CHOW):
                continue
            got = self.claim_result(ev, a)
            if got is None:
                continue
            score = self.claim_score(ev, a, s0, got)
            if score is not None and (best is None or score > best[0]):
                best = (score, a)
        if best is not None:
            return best[1]
        passes = _find(legal, ActionKind.PASS)
        return passes[0] if passes else legal[0]

    def claim_score(self, ev: Evaluator, a: Action, s0: int, s1: int) -> float | None:
        """Score of a claim (higher first), or None to leave it."""
        if a.kind == ActionKind.EXPOSED_KONG:
            return 3.0 + (s0 - s1) * 10 if s1 <= s0 else None
        if s1 < s0:
            return (s0 - s1) * 10 + (2.0 if a.kind == ActionKind.PONG else 1.0)
        return None


class StrongBot(GreedyBot):
    """Greedy play plus the value of the win: keeps and pongs seat-wind, Red and Green
    pairs (1 tai each, L21), chases 混一色 / 清一色 and 对对胡 when the hand leans that way,
    claims only when it helps (and never against its plan), and defends (discards tiles
    already discarded, honours all of whose copies are in sight) when another seat is
    clearly close to a big hand and its own hand is far from ready."""

    name = "strong"
    SLACK = 0  # discards up to this many steps of shanten worse than the best are weighed

    def plans(self, ev: Evaluator, counts: list[int]) -> tuple[int | None, int, bool]:
        """(flush suit or None, tiles off that suit, pong-hand plan) for ``counts`` plus the
        declared melds."""
        return self.plans_of(ev, _tally(counts, ev.view.hand.melds))

    def plans_of(self, ev: Evaluator, tally: Tally) -> tuple[int | None, int, bool]:
        """:meth:`plans` from a hand's :class:`Tally`."""
        meld_suits: set[int] = set()
        chows = False
        for m in ev.view.hand.melds:
            if m.kind == MeldKind.CHOW:
                chows = True
            if m.tile < 27:
                meld_suits.add(m.tile // 9)
        flush: int | None = None
        off = 99
        if len(meld_suits) <= 1:
            man, pin, sou = tally[0], tally[1], tally[2]
            target = 0 if man >= pin and man >= sou else 1 if pin >= sou else 2  # the first of the most
            if not meld_suits or target in meld_suits:
                off = man + pin + sou - tally[target]
                if off <= 5:
                    flush = target
        pong_plan = not chows and tally[4] >= 5
        return flush, off, pong_plan

    def value_kinds(self, ev: Evaluator) -> tuple[int, ...]:
        return (seat_wind(wind_of(ev.view.seat, ev.view.dealer)), RED, GREEN)

    def rank_discards(self, ev: Evaluator, tiles: Sequence[int]) -> list[tuple[float, int]]:
        """Score = log of (speed x value): each step of shanten costs a factor ~4, more
        improving tiles help as log(1 + n), and a plan that would double the win (a tai)
        adds log(1 + p), p its rough chance (L21, L22)."""
        sh = ev.shape
        counts = sh.counts
        shanten, keep = ev.discard_shantens()
        firsts = [(shanten if keep >> t & 1 else shanten + 1, t) for t in sorted(set(tiles)) if counts[t]]
        if not firsts:
            return []
        best = min(x for x, _ in firsts)
        readies = sum(1 for x, _ in firsts if x == 0)
        tally = _tally(counts, ev.view.hand.melds)
        out: list[tuple[float, int]] = []
        for x, t in firsts:
            if x > best + self.SLACK:
                out.append((-100.0 * x, t))
                continue
            if x == 0 and readies == 1 and self.SLACK == 0:
                # The only discard that stays ready ranks first whatever its wins are worth
                # (every other one scores -100 or less), so they are not scored: same order.
                out.append((0.001 * _ORDER[t], t))
                continue
            counts[t] -= 1
            if x == 0:
                # Ready: the winning tiles and what a win on each would score (L19-L24).
                outs, value = self.ready_value(ev, counts)
                counts[t] += 1
                score = math.log1p(outs) + math.log(max(value, 1.0)) + 0.001 * _ORDER[t]
                out.append((score, t))
                continue
            # One step from ready: look two draws ahead (ready_quality), else count the
            # improving tiles.
            if x == 1:
                lo, hi = ev.without(t)
                u = ev.ready_quality_of(lo, hi, sh.melds)
            else:
                u = ev.discard_outs(t)
            v = PLAN_WEIGHT * self.plan_value_of(ev, counts, _tally_without(tally, t, counts[t] + 1))
            counts[t] += 1
            score = -SHANTEN_COST * x + math.log1p(u) + v + 0.001 * _ORDER[t]
            out.append((score, t))
        out.sort(key=itemgetter(0), reverse=True)  # stable: equal scores keep the tile order
        return out

    def ready_value(self, ev: Evaluator, counts: list[int]) -> tuple[int, float]:
        """For a ready hand (``counts`` + wilds + melds): the unseen winning tiles, and the
        average chips per loser a win would bring (total/10 + bonus, scored by
        :func:`caishen.variants.longgang.scoring.win_value` on a discard), weighted by unseen copies. A wild
        drawn wins with the best of them."""
        view = ev.view
        rs = view.ruleset
        assert isinstance(rs, Ruleset)  # the strong bot scores Longgang hands (L19-L24)
        wilds = view.wilds
        concealed = [k for k in range(NUM_NON_FLOWER) for _ in range(counts[k])]
        if ev.shape.wilds:
            concealed.extend(k for k in view.hand.concealed if k in wilds)
            concealed.sort()
        before = Hand.trusted(tuple(concealed), view.hand.melds, view.hand.flowers)
        hand_key = (before, view.seat, view.dealer, view.indicator, rs)
        scored = _win_chips.get(hand_key)
        if scored is None:
            scored = _win_chips[hand_key] = {}
        outs = 0
        weighted = 0.0
        best = 0.0
        lo, hi = keys_of(counts)
        for k in _bits(ev.better(lo, hi, ev.shape.melds) >> RESULT_SHIFT & ev.drawable):
            u = ev.unseen[k]
            if k in scored:
                got = scored[k]
            else:
                try:
                    ctx = WinContext(k, WinBy.DISCARD, view.seat, view.dealer, view.indicator)
                    got = win_value(before, ctx, rs) / rs.fu_per_chip  # total + bonus fu
                except ScoringError:
                    got = None
                if _win_chips_size[0] >= _win_chips_kept[0]:
                    _win_chips.clear()
                    _win_chips_size[0] = 0
                    scored = _win_chips[hand_key] = {}
                _win_chips_size[0] += 1
                scored[k] = got
            if got is None:
                continue
            chips = got
            outs += u
            weighted += u * chips
            best = max(best, chips)
        if outs == 0:
            return 0, 1.0
        return outs + ev.unseen_wilds, (weighted + ev.unseen_wilds * best) / (outs + ev.unseen_wilds)

    def plan_value(self, ev: Evaluator, counts: list[int]) -> float:
        return self.plan_value_of(ev, counts, _tally(counts, ev.view.hand.melds))

    def plan_value_of(self, ev: Evaluator, counts: list[int], tally: Tally) -> float:
        """:meth:`plan_value` of ``counts`` with their :class:`Tally` already made."""
        late = ev.view.wall_left < 30
        v = 0.0
        flush, off, pong_plan = self.plans_of(ev, tally)
        # Chase a flush or 对对胡 only when it is near: a far plan costs more speed than
        # the tai is worth (measured by simulation, docs/simulate.md).
        if flush is not None and off <= FLUSH_NEAR:
            honours = tally[3]
            p = (FLUSH_NEAR + 1 - off) / (FLUSH_NEAR + 1) * (0.5 if late else 1.0)
            factor = 4.0 if honours == 0 else 2.0  # 清一色 limit (L22) / 混一色 1 tai (L21)
            v += math.log1p(p * (factor - 1))
        if pong_plan:
            q = tally[4]
            if q >= PONGS_NEAR:
                v += math.log1p(min(1.0, (q - PONGS_NEAR + 1) / 2))  # 对对胡 1 tai (L21)
        for k in self.value_kinds(ev):
            c = counts[k]
            if c >= 3:
                v += LN2  # seat wind / Red / Green triplet: 1 tai (L21)
            elif c == 2:
                v += math.log1p(0.5 if ev.unseen[k] or ev.shape.wilds else 0.2)
        return v

    def threats(self, ev: Evaluator) -> list[tuple[int, int | None]]:
        """Seats clearly close to a big hand: (seat, flush suit or None)."""
        out: list[tuple[int, int | None]] = []
        view = ev.view
        for seat, melds in enumerate(view.melds):
            if seat == view.seat or len(melds) < 3:
                continue
            suits = {m.tile // 9 for m in melds if m.tile < 27}
            all_pongs = all(m.kind != MeldKind.CHOW for m in melds)
            honour_value = sum(
                1 for m in melds if m.kind != MeldKind.CHOW and m.tile in (RED, GREEN, seat_wind(wind_of(seat, view.dealer)))
            )
            if len(suits) <= 1 or all_pongs or honour_value >= 2 or len(melds) >= 4:
                out.append((seat, next(iter(suits)) if len(suits) == 1 else None))
        return out

    def danger(self, ev: Evaluator, tile: int, threats: list[tuple[int, int | None]]) -> int:
        view = ev.view
        worst = 0
        for seat, suit in threats:
            if tile in view.discards[seat]:
                continue  # a tile he threw away himself (现物)
            if is_honor(tile):
                d = 1 if ev.unseen[tile] == 0 else 3
            elif is_terminal(tile):
                d = 4
            else:
                d = 6
            if suit is not None and tile < 27 and tile // 9 == suit:
                d += 5
            worst = max(worst, d)
        return worst

    def own_turn(self, ev: Evaluator, legal: Sequence[Action]) -> Action:
        threats = self.threats(ev)
        if threats:
            discards = _find(legal, ActionKind.DISCARD)
            ranked = self.rank_discards(ev, [a.tile for a in discards])
            if ranked:
                best_s = ev.discard_shanten(ranked[0][1])
                if best_s >= 2:
                    order = {t: i for i, (_, t) in enumerate(ranked)}
                    tile = min(order, key=lambda t: (self.danger(ev, t, threats), order[t]))
                    for a in discards:
                        if a.tile == tile:
                            return a
            return self.own_turn_ranked(ev, legal, discards, ranked)  # not ranked twice
        return super().own_turn(ev, legal)

    def claim_score(self, ev: Evaluator, a: Action, s0: int, s1: int) -> float | None:
        flush, _, pong_plan = self.plans(ev, ev.shape.counts)
        off_suit = flush is not None and a.tile < 27 and a.tile // 9 != flush
        if a.kind == ActionKind.EXPOSED_KONG:
            return 3.0 + (s0 - s1) * 10 if s1 <= s0 and not off_suit else None
        if a.kind == ActionKind.PONG:
            valuable = a.tile in self.value_kinds(ev)
            if off_suit and not valuable:
                return None
            if s1 < s0 or (s1 == s0 and (valuable or pong_plan)):
                return (s0 - s1) * 10 + 2.0 + (5.0 if valuable else 0.0)
            return None
        if a.kind == ActionKind.CHOW:
            if pong_plan or off_suit:
                return None
            if s1 < s0:
                return (s0 - s1) * 10 + 1.0
        return None

