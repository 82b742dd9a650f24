"""One hand 一盘, changed only by checked actions: the generic turn/claim/rob state machine.

:class:`Game` holds the state of a hand: the wall (L4, L6), the four hands as integer count
arrays, open melds, flowers, discards, and whose move it is. :meth:`Game.legal_actions` lists
exactly the moves a seat may make now; :meth:`Game.step` refuses anything else with an
:class:`IllegalActionError` that says why (:mod:`caishen.engine.explain`). Flower replacement
补花 is automatic. :meth:`Game.observation` is the whole message for one seat. The game plays
by a variant's rules object (:class:`~caishen.engine.rules.GameRules`: data and hooks) and never
names a variant. Every move made is in :attr:`Game.move_stack`. The state machine, the wall
convention and every choice made where the sources are silent are in ``docs/engine.md``.
"""

from __future__ import annotations

from typing import Final, cast

from caishen import fair
from caishen.engine.actions import (
    CONCEALED_KONGS,
    DECLARE_DRAW,
    EXPOSED_KONGS,
    PASS,
    PONGS,
    WIN,
    Action,
    ActionKind,
    IllegalActionError,
)
from caishen.engine.explain import action_problem, why_illegal
from caishen.engine.observation import Observation, Phase, new_observation
from caishen.engine.outcome import Claim, DrawReason, Outcome, WinHow
from caishen.engine.rules import GameRules
from caishen.engine.seat import chow_twin
from caishen.engine.state import SEATS, HandState
from caishen.errors import CaishenError
from caishen.hand import Hand, Meld, MeldKind
from caishen.tiles import NUM_NON_FLOWER, NUM_SUITED, WINDS

__all__ = [
    "PASS",
    "WIN",
    "Action",
    "ActionKind",
    "DrawReason",
    "Game",
    "IllegalActionError",
    "Observation",
    "Outcome",
    "Phase",
    "WinHow",
]

_WINDS: Final = frozenset(WINDS)
_EMPTY_HAND: Final = Hand((), (), ())


class Game(HandState):
    """The state of one hand and its moves. Build it from an explicit wall (tuple of tile kinds
    in wall position order, see :mod:`caishen.engine.wall`) and dice, or with :meth:`from_seed`;
    the wall, the seats and the win checks are :class:`~caishen.engine.state.HandState`'s."""

    def __new__(cls, *args: object, **kwargs: object) -> Game:
        # Pickle and copy make a game without calling __init__, then set its state. The compiled
        # build (mypyc) calls __init__ from __new__ unless the class has a __new__ of its own.
        return cast(Game, super().__new__(cls))

    @classmethod
    def from_seed(cls, seed: bytes, ruleset: GameRules, dealer: int = 0) -> Game:
        """A hand dealt from a committed seed (``caishen.fair``)."""
        return cls(ruleset, fair.shuffled_wall(seed, ruleset), fair.dice(seed), dealer)

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """Exactly the moves ``seat`` may make now (empty if it has nothing to decide)."""
        if self._cache_version != self._version:
            self._cache = {}
            self._cache_version = self._version
        got = self._cache.get(seat)
        if got is None:
            got = self._compute_legal(seat)
            self._cache[seat] = got
        return got

    def observation(self, seat: int) -> Observation:
        """What ``seat`` (0-3) may know now; any other seat is a :class:`CaishenError` (``-1``
        would otherwise index seat 3's hand and label it seat -1)."""
        if not 0 <= seat < SEATS:
            raise CaishenError(f"no seat {seat!r} (seats are 0-3)", code="no-seat")
        # Built on every decision of self-play with observations (the RL env): plain loops and
        # explicit four-seat tuples, no generators; per seat counts kept by _add (self._n); the
        # fields set by new_observation, not by the dataclass's (interpreted) __init__.
        own = self._seats[seat].hand()
        phase = self._phase
        if self._sea:  # 分张 under way (or over): tiles not yet handed out
            sea_left = max(len(self._sea) - self._sea_i - 1, 0) if phase is Phase.SEA_FLOOR else 0
        else:
            sea_left = self.ruleset.sea_floor_tiles
        s0, s1, s2, s3 = self._seats
        return new_observation(
            seat=seat,
            dealer=self.dealer,
            dice=self.dice,
            indicator=self.indicator,
            wilds=self.wilds[seat],
            phase=phase,
            current=self.current if phase is not Phase.OVER else self._turn,
            to_move=self._public_to_move(seat),
            hand=own,
            melds=(tuple(s0.melds), tuple(s1.melds), tuple(s2.melds), tuple(s3.melds)),
            flowers=(tuple(s0.open_flowers), tuple(s1.open_flowers), tuple(s2.open_flowers), tuple(s3.open_flowers)),
            discards=(tuple(s0.discards), tuple(s1.discards), tuple(s2.discards), tuple(s3.discards)),
            last_discard=self._discard_tile if phase is Phase.CLAIM else (
                self._rob_tile if phase is Phase.ROB else None),
            concealed_counts=(s0.n, s1.n, s2.n, s3.n),
            live_tiles=self.live_tiles,
            sea_floor_tiles=sea_left,
            dead_wall_tiles=self._dead(),
            legal_actions=self.legal_actions(seat),
        )

    def decision(self, seat: int) -> Observation:
        """A light observation for players that read only their legal actions (the random
        player): the seat, the phase, whose turn and the legal actions; the rest is empty. One
        object per seat, updated in place: valid until the next move (self-play's hot path)."""
        obs = self._decisions[seat]
        if obs is None:
            obs = self._decisions[seat] = Observation(
                seat, self.dealer, self.dice, self.indicator, self.wilds[seat], self._phase, self._turn, (),
                _EMPTY_HAND, (), (), (), None, (), 0, 0, 0, (),
            )
        obs.phase = self._phase
        obs.current = self._turn
        obs.legal_actions = self.legal_actions(seat)
        return obs

    def _public_to_move(self, seat: int) -> tuple[int, ...]:
        """Who must move, as ``seat`` may know it: whose turn it is; on a discard or kong only
        whether ``seat`` itself is asked (who else may claim is hidden information)."""
        if self._phase is Phase.CLAIM or self._phase is Phase.ROB:
            return (seat,) if seat in self._options and seat not in self._chosen else ()
        return self.to_move()

    # ------------------------------------------------------------------ stepping

    def step(self, seat: int, action: Action) -> None:
        """Make a move; raises :class:`IllegalActionError` (with the reason and rule) if it is not
        allowed, leaving the game unchanged. The move goes on :attr:`move_stack`."""
        if self._phase is Phase.OVER:
            raise IllegalActionError("the hand is over", code="hand-over")
        legal = self.legal_actions(seat) if type(seat) is int else ()
        for a in legal:  # players usually pass back a shared instance: no dataclass __eq__
            if a is action:
                break
        else:
            # Types first: True == 1 and 3.0 == 3, so `in` alone would take them for tiles.
            if action_problem(action) is not None or action not in legal:
                raise why_illegal(self, seat, action)
            action = legal[legal.index(action)]  # the shared instance: checks below use `is`
        self.move_stack.append((seat, action))
        ph = self._phase
        if ph is Phase.TURN:
            self._do_turn(seat, action)
        elif ph is Phase.CLAIM:
            self._chosen[seat] = action
            if len(self._chosen) == len(self._options):
                self._resolve_claims()
        elif ph is Phase.ROB:
            self._chosen[seat] = action
            if len(self._chosen) == len(self._options):
                self._resolve_rob()
        else:  # SEA_FLOOR
            if action is WIN:
                self._win(seat, WinHow.SELF_DRAW, self._drawn, None, sea_floor=True,
                          after_kong=self._drawn_tail)
            else:
                self._sea_next()
        self._version += 1

    # ------------------------------------------------------------------ legal actions

    def _compute_legal(self, seat: int) -> tuple[Action, ...]:
        ph = self._phase
        if ph is Phase.TURN:
            return self._turn_actions(seat) if seat == self._turn else ()
        if ph is Phase.CLAIM or ph is Phase.ROB:
            if seat in self._chosen:
                return ()
            return self._options.get(seat, ())
        if ph is Phase.SEA_FLOOR:
            if seat == self._sea[self._sea_i][0]:
                return (WIN, PASS)
            return ()
        return ()

    def _turn_actions(self, seat: int) -> tuple[Action, ...]:
        st = self._seats[seat]
        if self._kong_round:  # the opening kong round: concealed kongs of the fours offered, or pass
            offer = st.kong_offer & st.fours()
            return (*(CONCEALED_KONGS[k] for k in range(NUM_NON_FLOWER) if offer >> k & 1), PASS)
        if self._claimed:
            return st.discards_after_claim(self._forbid)
        out: list[Action] = []
        if self._can_self_win(seat):
            out.append(WIN)
        declare = self._declare and self._may_declare_draw(seat)
        st.turn_moves(out)  # natural (non-wild) kinds held: kongs, then the discards (L8, L9)
        if declare:
            out.append(DECLARE_DRAW)
        return tuple(out)

    def _first_go_round(self) -> bool:
        """The first go-round 首巡: no chow, pong or exposed kong yet, the dealer not drawn again."""
        return self._n_claims == 0 and not self._dealer_drew

    def _draw_declaration(self, seat: int) -> str | None:
        """The variant's name of the draw ``seat`` may declare now (叫和局), ``None`` for none."""
        return self.ruleset.draw_declaration(self._win_hand(seat, -1), self.wilds[seat])

    def _may_declare_draw(self, seat: int) -> bool:
        """In its own turn (not after a claim, not in the kong round) of the first go-round."""
        return self._first_go_round() and self._draw_declaration(seat) is not None

    def _claim_options(self, seat: int, tile: int, discarder: int) -> tuple[Action, ...]:
        st = self._seats[seat]
        n = st.cnt[tile]
        chow_seat = seat == (discarder + 1) % SEATS and self.ruleset.allow_chow
        if n < 2 and not chow_seat and st.tw < self._bulldozer_need and not self._special and (
            not st.could_win(tile, self._bulldozer_need, self._win_size)
        ):
            return ()  # only a win could be claimed, and the pre-filter rules it out (not the variant's shapes)
        out: list[Action] = []
        bulldozer = self._has_bulldozer(seat) and self._wins_with(seat, -1)
        self._bulldozer_claim[seat] = False
        if bulldozer:
            out.append(WIN)
            self._bulldozer_claim[seat] = True
        elif self._may_win_on(seat, tile, False):
            out.append(WIN)
        if st.wild[tile]:
            return (*out, PASS) if out else ()
        if n == 3:
            out.append(EXPOSED_KONGS[tile])
        if n >= 2 and not st.pong_ban >> tile & 1 and st.discard_left_after((tile, tile), (tile, -1)):
            out.append(PONGS[tile])
        if chow_seat and tile < NUM_SUITED and tile != st.last_discard:  # source (五)f: not the kind just discarded
            st.chows(tile, out)
        if not out:
            return ()
        out.append(PASS)
        return tuple(out)

    # ------------------------------------------------------------------ actions

    def _do_turn(self, seat: int, a: Action) -> None:
        kind = a.kind
        if self._kong_round:
            self._round_move(seat, a)
        elif kind is ActionKind.DISCARD:
            self._discard(seat, a.tile)
        elif kind is ActionKind.WIN and self._four_kongs == seat and self._drawn_tail:
            # 四杠 switch (source 胡牌規則 3d): "第四槓時槓上開花也算合局": a win on the fourth kong's
            # replacement ends the hand as a draw too.
            self._draw_game(DrawReason.FOUR_KONGS)
        elif kind is ActionKind.WIN:
            heavenly = seat == self.dealer and self._n_discards == 0 and self._n_claims == 0
            win_type = self._own_turn_win(seat) if self._decides else None
            self._win(seat, WinHow.SELF_DRAW, self._drawn, None, heavenly=heavenly,
                      after_kong=self._drawn_tail, last_live=self._last_live, win_type=win_type)
        elif kind is ActionKind.CONCEALED_KONG:
            self._concealed_kong(seat, a.tile)
            self._after_kong(seat)
        elif kind is ActionKind.ADDED_KONG:
            self._added_kong(seat, a.tile)
        elif kind is ActionKind.DECLARE_DRAW:
            self._draw_game(DrawReason.DECLARED, self._draw_declaration(seat), seat)
        else:  # pragma: no cover - legal_actions never offers it
            raise IllegalActionError(f"{a} is not a turn action")

    def _concealed_kong(self, seat: int, k: int) -> None:
        st = self._seats[seat]
        st.add(k, -4)
        st.melds.append(Meld.kong(k, MeldKind.CONCEALED_KONG))
        self._claims.append(Claim(seat, k, MeldKind.CONCEALED_KONG, None))

    def _after_kong(self, seat: int) -> bool:
        """The replacement of a kong (and of its flowers); False if 分张 began."""
        self._kong_seats.append(seat)
        ks = self._kong_seats
        if self.ruleset.draw_on_four_kongs and len(ks) == 4 and len(set(ks)) > 1:
            self._four_kongs = seat
        if self._replace(seat) and self._settle_flowers(seat):
            self._enter_turn(seat)
            return True
        return False

    def _discard(self, seat: int, k: int) -> None:
        st = self._seats[seat]
        st.add(k, -1)
        st.discards.append(k)
        st.pass_win = False  # L11: 过水 ends with one's own discard
        st.last_discard = k
        # Source (五)G 獨吊牌型的特殊情況: "A沒選擇胡牌，而是作出了吃或碰的舉動，而後把手中的將頭…拆開打出一張，
        # 從而使自己形成獨吊的牌型，此時同一圈內若有其它玩家跟打出同樣的牌，A也可胡。"
        st.dudiao = self._claimed and self._claim_over_win and st.n == 1 and st.cnt[k] == 1
        self._n_discards += 1
        self._discard_tile = k
        self._discarder = seat
        if self._n_discards == 1:
            # L7 / source 舍牌: the dealer replaces and discards first, then South, West and
            # North replace in turn (before anyone claims this discard, so a flower never
            # costs a seat its 地胡).
            # Source 補花: "若所補之牌仍然有花，則於大家補完牌後說「再補」": a replacement that is a
            # flower again is replaced in a further round, after every seat has replaced once.
            seats = [(seat + j) % SEATS for j in range(1, SEATS)]
            seats = [s for s in seats if self._seats[s].pending_flowers]
            for s in seats:
                self._seats[s].pending_flowers = False
            while seats:
                again = []
                for s in seats:
                    done = self._replace_flowers_once(s)
                    if done is False:  # pragma: no cover - the wall is full here
                        return
                    if done:
                        again.append(s)
                seats = again
            if self.ruleset.opening_kong_round:
                # Source 舍牌/補槓: "補完所有花後方可補暗槓 … 按東風位→南風位→西風位→北風位的順序依次進行補暗槓":
                # the dealer had his first turn; South, West and North now declare theirs in turn.
                self._kong_round = [(seat + j) % SEATS for j in range(1, SEATS)]
                if self._next_kong_seat():
                    return
        self._open_claims(seat, k)

    def _open_claims(self, seat: int, k: int) -> None:
        """Open the claim window on ``seat``'s discard ``k`` (or go on when nobody may claim)."""
        self._discard_last_live = self._live() == 0
        self._draw_after = ""
        if self._n_claims == 0 and len(self._first_discards) < SEATS:
            self._first_discards.append(k)
            fd = self._first_discards
            if (self.ruleset.draw_on_four_winds and len(fd) == SEATS and fd[0] in _WINDS
                    and fd.count(fd[0]) == SEATS):
                self._draw_after = DrawReason.FOUR_WINDS  # 四风连打: a draw unless someone wins on it
        if self._four_kongs == seat:
            self._four_kongs = -1
            self._draw_after = DrawReason.FOUR_KONGS  # 四杠: the konger's discard, if safe, ends the hand
        self._options = {}
        self._chosen = {}
        nxt = (seat + 1) % SEATS
        chow = self.ruleset.allow_chow and k < NUM_SUITED
        fast = not self._special  # the variant's own shapes pass the pre-filter's test (GameRules.special_win)
        for j in range(1, SEATS):
            s = (seat + j) % SEATS
            st = self._seats[s]
            # Fast path of _claim_options: only a win is possible, and the pre-filter rules it out.
            # (A discard is never wild for anyone: wild kinds are never discarded, L8.)
            if fast and st.cnt[k] < 2 and not (chow and s == nxt) and st.tw < self._bulldozer_need and st.no_win_on(k):
                continue
            opts = self._claim_options(s, k, seat)
            if opts:
                self._options[s] = opts
        if self._options:
            self._phase = Phase.CLAIM
        elif self._draw_after:
            self._draw_game(DrawReason(self._draw_after))
        else:
            self._draw((seat + 1) % SEATS)

    def _next_kong_seat(self) -> bool:
        """Ask the next seat of the opening kong round that holds a four it has not declined;
        further rounds for fours made by a round kong's replacement ("補槓槓出來的…槓需在其他玩家都
        槓完一圈的情況下才能再槓"). False when the round is over."""
        while True:
            while self._kong_round:
                s = self._kong_round[0]
                st = self._seats[s]
                offer = st.fours() & ~st.kong_declined
                if offer:
                    st.kong_offer = offer
                    st.konged_in_round = False
                    self._enter_turn(s)
                    self._drawn = -1  # nothing drawn this turn: the last tile drawn was another seat's
                    self._drawn_tail = False
                    return True
                self._kong_round.pop(0)
            if not self._kong_next:
                return False
            self._kong_round, self._kong_next = self._kong_next, []

    def _round_move(self, seat: int, a: Action) -> None:
        """A concealed kong or a pass in the opening kong round."""
        st = self._seats[seat]
        if a.kind is ActionKind.CONCEALED_KONG:
            st.kong_offer &= ~(1 << a.tile)
            st.konged_in_round = True
            self._concealed_kong(seat, a.tile)
            if not self._after_kong(seat):  # pragma: no cover - the wall is full at the start
                self._kong_round = []
                self._kong_next = []
                return
            if st.kong_offer & st.fours():
                return  # "每家都必須全部補完槓才能輪到下家": the same seat goes on
        else:  # PASS: the four is kept (it may be konged in a later own turn: "暗槓…可以往後再補")
            st.kong_declined |= st.kong_offer
        st.kong_offer = 0
        self._kong_round.pop(0)
        if st.konged_in_round and st.fours() & ~st.kong_declined:
            self._kong_next.append(seat)
        if not self._next_kong_seat():
            self._open_claims(self._discarder, self._discard_tile)

    def _resolve_claims(self) -> None:
        tile = self._discard_tile
        d = self._discarder
        order = [(d + j) % SEATS for j in range(1, SEATS)]
        chosen = self._chosen
        winner = -1
        if self.ruleset.draw_on_three_wins and sum(1 for s in order if chosen.get(s) is WIN) == len(order):
            self._draw_game(DrawReason.THREE_WINS)  # 一炮三響 / 三炮同響 (L17 switch)
            return
        # L10 + source 胡牌規則1: a bulldozer declared before the seat's first draw ("時未摸進首張牌，
        # 補花補槓除外") comes first, even before 地胡; otherwise wins go in order from the discarder.
        for s in order:
            if chosen.get(s) is WIN and self._bulldozer_claim.get(s) and not self._seats[s].drew:
                winner = s
                break
        if winner < 0:
            for s in order:
                if chosen.get(s) is WIN:
                    winner = s
                    break
        if winner >= 0:
            if self._bulldozer_claim.get(winner):
                self._win(winner, WinHow.BULLDOZER, -1, d)
            else:
                earthly = d == self.dealer and self._n_discards == 1 and self._n_claims == 0
                win_type = (self.ruleset.discard_win(self._win_hand(winner, -1), tile, self.indicator)
                            if self._decides else None)
                self._win(winner, WinHow.DISCARD, tile, d, earthly=earthly,
                          last_live=self._discard_last_live, win_type=win_type)
            return
        if self._draw_after:
            self._draw_game(DrawReason(self._draw_after))
            return
        # Restrictions for what was passed (L11).
        for s, opts in (self._options.items() if self.ruleset.pass_bans else ()):
            passed = chosen[s]
            if _holds(opts, WIN) and passed is not WIN and not self._bulldozer_claim.get(s):
                self._seats[s].pass_win = True
            if _holds(opts, PONGS[tile]) and passed is not PONGS[tile]:
                self._seats[s].pong_ban |= 1 << tile
        for kind in (ActionKind.EXPOSED_KONG, ActionKind.PONG, ActionKind.CHOW):
            for s in order:
                act = chosen.get(s)
                if act is not None and act.kind is kind:
                    self._claim(s, act)
                    return
        self._draw((d + 1) % SEATS)

    def _claim(self, seat: int, a: Action) -> None:
        tile = a.tile
        self._claim_over_win = _holds(self._options.get(seat, ()), WIN) and not self._bulldozer_claim.get(seat)
        self._seats[self._discarder].discards.pop()
        self._n_claims += 1
        st = self._seats[seat]
        if a.kind is ActionKind.EXPOSED_KONG:
            st.add(tile, -3)
            st.melds.append(Meld.kong(tile, MeldKind.EXPOSED_KONG))
            self._claims.append(Claim(seat, tile, MeldKind.EXPOSED_KONG, self._discarder))
        elif a.kind is ActionKind.PONG:
            st.add(tile, -2)
            st.melds.append(Meld.pong(tile))
            st.pongs |= 1 << tile
            self._claims.append(Claim(seat, tile, MeldKind.PONG, self._discarder))
            self._pong_fed[(seat, tile)] = self._discarder
        else:
            low = a.chow_low
            for x in (low, low + 1, low + 2):
                if x != tile:
                    st.add(x, -1)
            st.melds.append(Meld.chow(tile, low))
        # L7: flowers still held are replaced before the claimer's discard (defensive: every
        # seat has replaced by the time anyone can claim, see _discard).
        if st.pending_flowers:
            st.pending_flowers = False
            if not self._settle_flowers(seat):
                return
        if a.kind is ActionKind.EXPOSED_KONG:
            self._after_kong(seat)
            return
        self._enter_turn(seat)
        self._claimed = True
        twin = chow_twin(tile, a.chow_low) if a.kind is ActionKind.CHOW else -1
        self._forbid = (tile, twin)
        if not self._turn_actions(seat):  # pragma: no cover - claims that strand are refused
            raise AssertionError("claim left no legal discard")

    def _added_kong(self, seat: int, k: int) -> None:
        self._seats[seat].pass_win = False  # L11 source: 过水 ends with a discard or an added kong
        self._options = {}
        self._chosen = {}
        self._rob_tile = k
        self._rob_seat = seat
        for j in range(1, SEATS):
            s = (seat + j) % SEATS
            if self._may_win_on(s, k, True):
                self._options[s] = (WIN, PASS)
        if self._options:
            self._phase = Phase.ROB
        else:
            self._finish_added_kong()

    def _finish_added_kong(self) -> None:
        seat = self._rob_seat
        k = self._rob_tile
        st = self._seats[seat]
        ms = st.melds
        for i, m in enumerate(ms):
            if m.kind is MeldKind.PONG and m.tiles[0] == k:
                ms[i] = Meld.kong(k, MeldKind.ADDED_KONG)
                break
        st.pongs &= ~(1 << k)
        st.add(k, -1)
        self._claims.append(Claim(seat, k, MeldKind.ADDED_KONG, self._pong_fed.get((seat, k))))
        self._rob_tile = -1
        self._after_kong(seat)

    def _resolve_rob(self) -> None:
        konger = self._rob_seat
        for j in range(1, SEATS):
            s = (konger + j) % SEATS
            if self._chosen.get(s) is WIN:
                self._win(s, WinHow.ROB_KONG, self._rob_tile, konger)
                return
        for s in self._options:
            self._seats[s].pass_win = True  # L11: passing a win, robbing included
        self._finish_added_kong()


def _holds(actions: tuple[Action, ...], action: Action) -> bool:
    """``action in actions`` by identity: the engine's actions are shared instances (``step``
    takes the listed one), and a miss would call the dataclass's interpreted ``__eq__`` on each."""
    for a in actions:
        if a is action:
            return True
    return False
