"""The ``strong`` bot of Luoyang Gangci 洛阳杠次: greedy play that knows the 次牌 (G5).

A 次 pays far more than a 炸弹 (with the default bases an 暗次 brings 3 × 700, a 炸弹 3 × 200,
G2.5-G2.8), and every 次 needs two things at once: a hand ready on the 次牌's kind and a kong
to make (a concealed triplet whose fourth tile comes, or a pong whose fourth tile is drawn).
So, on top of :class:`~caishen.bots.players.GreedyBot`:

* among the discards that keep the shanten lowest it keeps concealed triplets and tiles of the
  次牌's kind (three of them concealed are a 天次, G5.2), and prefers ready hands that wait on
  the 次牌 with a kong still possible;
* it never pongs the 次牌's kind (that would spend the tiles of a 天次);
* offered a 炸弹 (G5.6) it weighs declining (G5.9: by discarding instead) against the chance of a
  次 from the same hand: declined when ``DECLINE_WEIGHT`` × P(次) × the 次's gain exceeds the
  炸弹's gain (:meth:`GangciStrongBot.ci_chance`, a plain draw-odds estimate);
* it takes every other win, and every kong the greedy bot would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from caishen.bots.players import Evaluator, GreedyBot
from caishen.bots.view import View, from_observation
from caishen.engine.actions import Action, ActionKind
from caishen.engine.observation import Observation, Phase
from caishen.hand import Hand, MeldKind
from caishen.variants.luoyang_gangci.adapter import hand_waits
from caishen.variants.luoyang_gangci.payments import best_win, winner_gain
from caishen.variants.luoyang_gangci.rules import DEFAULT, GangciRules
from caishen.variants.luoyang_gangci.wins import GangciWin, own_turn_wins

#: Share of a 次's gain counted when weighing a declined 炸弹 (another seat may win first).
DECLINE_WEIGHT: Final = 0.7
#: Of another seat's draws of a tile we need, the share we expect to see discarded (直次).
DISCARD_SHARE: Final = 0.5
SEATS: Final = 4
#: Penalty (in the greedy ranking's units: 100 = one step of shanten) on discarding one of two
#: tiles of the 次牌's kind while the last one is unseen.
CI_PAIR_KEEP: Final = 150.0
ALWAYS_CONCEALED_KONG: Final = True


class GangciStrongBot(GreedyBot):
    """Greedy play plus the 次牌: keeps triplets when ready on it, weighs declining a 炸弹."""

    name = "strong"

    def __init__(self, rng: random.Random | None = None, ruleset: GangciRules = DEFAULT) -> None:
        super().__init__(rng, ruleset)
        self.rules = ruleset

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        view = from_observation(observation, self.ruleset)
        win = next((a for a in legal if a.kind == ActionKind.WIN), None)
        own_turn = observation.phase is Phase.TURN
        if win is not None and not (own_turn and self.declines(view, observation, legal)):
            return win
        ev = Evaluator(view)
        if own_turn:
            return self.own_turn(ev, legal)
        return self.claim(ev, legal)

    # -- the 炸弹 and the chance of a 次

    def declines(self, view: View, observation: Observation, legal: Sequence[Action]) -> bool:
        """Whether to decline the win offered on our own turn (only a 炸弹 is ever declined)."""
        ci = view.indicator
        if ci is None or not any(a.kind == ActionKind.DISCARD for a in legal):
            return False
        first = view.seat == view.dealer and not any(observation.discards) and not any(observation.melds)
        types = own_turn_wins(view.hand, ci, first)
        if not types or best_win(types, self.rules) is not GangciWin.ZHA_DAN:
            return False
        bomb = winner_gain(GangciWin.ZHA_DAN, self.rules)
        ci_gain = min(winner_gain(t, self.rules) for t in (GangciWin.AN_CI, GangciWin.ZHI_CI, GangciWin.XU_CI))
        chance = max((self.ci_chance(view, view.hand.without_tile(t)) for t in set(view.hand.concealed)),
                     default=0.0)
        return DECLINE_WEIGHT * chance * ci_gain > bomb

    def ci_chance(self, view: View, hand: Hand) -> float:
        """The chance that ``hand`` (13 tiles, after a discard) makes a 次 before the wall ends:
        it must wait on the 次牌's kind (G5.7); then each unseen fourth tile of a concealed
        triplet (暗次 on our draw, 直次 on another's discard) or of a pong (续次 on our draw)
        completes it. Draws are taken as uniform over the unseen tiles."""
        ci = view.indicator
        if ci is None or ci not in hand_waits(hand):
            return 0.0
        unseen = view.unseen()
        total = sum(unseen)
        if total == 0:
            return 0.0
        concealed = sum(unseen[k] for k in set(hand.concealed) if hand.concealed.count(k) == 3)
        ponged = sum(unseen[m.tile] for m in hand.melds if m.kind is MeldKind.PONG)
        own_draws = max(0, view.wall_left) / SEATS
        miss = (1 - (concealed + ponged) / total) ** own_draws
        miss *= (1 - DISCARD_SHARE * concealed / total) ** (own_draws * (SEATS - 1))
        return float(1.0 - miss)

    # -- discards: keep what a 次 needs

    def rank_discards(self, ev: Evaluator, tiles: Sequence[int]) -> list[tuple[float, int]]:
        ranked = super().rank_discards(ev, tiles)
        if not ranked:
            return ranked
        view = ev.view
        ci = view.indicator
        counts = ev.shape.counts
        top = ranked[0][0]
        out: list[tuple[float, int]] = []
        for score, t in ranked:
            if t == ci and counts[t] == 2 and ev.unseen[t]:
                score -= CI_PAIR_KEEP  # two of the 次牌's kind: the last one is a 天次 (G5.2)
            if top - score < 100:  # the same shanten as the best: weigh the 次
                if counts[t] == 3:
                    score -= 3.0  # keep a concealed triplet: its fourth tile makes a kong
                if t == ci:
                    score -= 2.0 * counts[t]
                chance = self.ci_chance(view, view.hand.without_tile(t))
                score += 20.0 * chance
            out.append((score, t))
        out.sort(key=lambda x: -x[0])
        return out

    def own_turn(self, ev: Evaluator, legal: Sequence[Action]) -> Action:
        """A concealed kong is paid 2 × 杠底 by each other seat at once (G2.3): as much as a
        炸弹 with the default bases, so it is always declared."""
        for a in legal:
            if a.kind == ActionKind.CONCEALED_KONG and ALWAYS_CONCEALED_KONG:
                return a
        return super().own_turn(ev, legal)

    def claim_score(self, ev: Evaluator, a: Action, s0: int, s1: int) -> float | None:
        if a.kind == ActionKind.PONG and a.tile == ev.view.indicator:
            return None  # the 次牌's kind stays concealed (天次, G5.2)
        return super().claim_score(ev, a, s0, s1)
