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

from bisect import insort
from typing import Final

from caishen import fair
from caishen.engine.actions import (
    ADDED_KONGS,
    CHOWS,
    CONCEALED_KONGS,
    DECLARE_DRAW,
    DISCARDS,
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
from caishen.engine.wall import WallLayout
from caishen.hand import Hand, Meld, MeldKind
from caishen.shapes.analysis import is_win as _is_win
from caishen.tiles import NUM_KINDS, NUM_NON_FLOWER, NUM_SUITED, WINDS, is_flower, tile_name

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

SEATS: Final = 4
_WINDS: Final = frozenset(WINDS)

# Bit of each non-flower kind in the isolation masks: suits 12 bits apart, honours 3 apart, so
# shifting by 1 or 2 never reaches another suit or honour (see Game._could_win).
_BIT: Final = tuple(
    1 << ((k // 9) * 12 + k % 9 if k < NUM_SUITED else 36 + 3 * (k - NUM_SUITED)) for k in range(NUM_NON_FLOWER)
)
_EMPTY_HAND: Final = Hand((), (), ())
_KIND_AT: Final = {b.bit_length() - 1: k for k, b in enumerate(_BIT)}


class Game:
    """The state of one hand. Build it from an explicit wall (tuple of tile kinds in wall
    position order, see :mod:`caishen.engine.wall`) and dice, or with :meth:`from_seed`."""

    def __new__(cls, *args: object, **kwargs: object) -> Game:
        # Pickle and copy make a game without calling __init__, then set its state. The compiled
        # build (mypyc) calls __init__ from __new__ unless the class has a __new__ of its own.
        return super().__new__(cls)

    def __init__(
        self,
        ruleset: GameRules,
        wall: tuple[int, ...],
        dice: tuple[int, int, int, int],
        dealer: int = 0,
    ) -> None:
        _check_wall(wall, ruleset)
        if len(dice) != 4 or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
            raise ValueError(f"dice must be four rolls 1..6, not {dice!r}")
        if dealer not in range(SEATS):
            raise ValueError(f"dealer must be a seat 0-3, not {dealer!r}")
        # ruleset, wall, dice, dealer, layout, indicator and wilds are read-only. They are not
        # marked Final: the compiled build (mypyc) would give them no setter, and pickle and
        # copy set them on the new game.
        self.ruleset = ruleset
        self.wall = tuple(wall)
        self.dice = (dice[0], dice[1], dice[2], dice[3])
        self.dealer = dealer
        self.layout: WallLayout = ruleset.wall_layout(self.dice, dealer, len(wall))
        lay = self.layout
        # The turned tile (None without one); -1 inside, where ints keep the hot paths plain.
        self._ind = wall[lay.indicator_pos] if lay.indicator_pos >= 0 else -1
        self.indicator = self._ind if self._ind >= 0 else None
        self._head = lay.head
        self._tail = lay.tail
        self._live_base = len(lay.head) - 2 * ruleset.dead_wall_stacks - ruleset.sea_floor_tiles
        # L6: with a dead wall, the single left of a split tail stack is dead; without one
        # (and without a sea floor) every tile but the turned one is drawn, head or tail.
        self._split = 1 if ruleset.dead_wall_stacks else 0
        # The turned tile leaves the tail stack with one tile: split at the start (source 王牌:
        # "10幢半（尾幢除財神牌外有單張）", 21 tiles), whole after one replacement, and so on.
        ind = lay.indicator_pos
        self._tail_parity = 1 if (ruleset.indicator_splits_tail and ind >= 0 and lay.tail
                                  and ind // 2 == lay.tail[0] // 2) else 0
        self._decides = ruleset.decides_wins
        self._special = ruleset.special_shapes  # shapes the analyser does not know (GameRules.special_win)
        self._declare = ruleset.declares_draws  # 叫和局 offered at all: one check per turn when off
        self._claims: list[Claim] = []     # pongs and kongs made, in order (Outcome.claims)
        self._pong_fed: dict[tuple[int, int], int] = {}  # (seat, kind) of a pong -> its discarder
        self._hi = 0
        self._ti = 0
        self._in_wall = bytearray(b"\x01" * len(wall))
        if lay.indicator_pos >= 0:
            self._in_wall[lay.indicator_pos] = 0
        # Wilds by seat wind: the dealer is East whatever his seat number (L1, L2).
        self.wilds = tuple(ruleset.wild_kinds(self.indicator, (s - dealer) % SEATS) for s in range(SEATS))
        self._wild = [[k in self.wilds[s] for k in range(NUM_KINDS)] for s in range(SEATS)]
        # 正财神 for 推土机 (L8): the indicator's kind; with a flower indicator also the wild
        # flowers (docs/rules L5). Only a pre-filter and a hint: analysis.is_win decides.
        flower_ind = self.indicator is not None and is_flower(self.indicator)
        self._true_wild = [
            [k in self.wilds[s] and (flower_ind or not is_flower(k)) for k in range(NUM_KINDS)]
            for s in range(SEATS)
        ]
        self.draws: list[tuple[int, int]] = []  # (seat, wall position) of every tile taken, deal included
        self.move_stack: list[tuple[int, Action]] = []  # (seat, action) of every move made, in order
        self._decisions: list[Observation | None] = [None] * SEATS
        self._cnt = [[0] * NUM_KINDS for _ in range(SEATS)]
        # Isolation masks over natural (non-wild) concealed tiles: kinds held, kinds held once.
        self._present = [0] * SEATS
        self._single = [0] * SEATS
        self._n = [0] * SEATS   # concealed tiles held (flowers held included)
        self._win_size = ruleset.hand_size + 1
        self._bulldozer_need = ruleset.bulldozer_wilds if ruleset.bulldozer else 99
        self._w = [0] * SEATS   # wild tiles held
        self._tw = [0] * SEATS  # 正财神 held
        self._melds: list[list[Meld]] = [[] for _ in range(SEATS)]
        self._pongs = [0] * SEATS          # bitmask of ponged kinds (for added kongs)
        self._open_flowers: list[list[int]] = [[] for _ in range(SEATS)]
        self._discards: list[list[int]] = [[] for _ in range(SEATS)]
        self._pending_flowers = [s != dealer for s in range(SEATS)]
        self._pass_win = [False] * SEATS   # 过水 (L11)
        self._pong_ban = [0] * SEATS       # bitmask of kinds not to pong until next draw (L11)
        self._last_discard = [-1] * SEATS  # kind of own discard this go-round (L11)
        # 獨吊 exception (L11, source (五)G): that discard split the pair left after a chow or pong
        # chosen over a win, leaving a single wait on its kind: a win on that kind stays allowed.
        self._dudiao = [False] * SEATS
        self._claim_over_win = False       # the turn's chow/pong was chosen over an offered win
        # The opening concealed-kong round (L9, source 補槓: "配牌補完所有花後方可補暗槓"): seats still
        # to be asked in this round, seats asked again in the next one, and per seat the kinds
        # (bitmasks) it may kong now, has declined, and whether it konged in this round.
        self._kong_round: list[int] = []
        self._kong_next: list[int] = []
        self._kong_offer = [0] * SEATS
        self._kong_declined = [0] * SEATS
        self._konged_in_round = [False] * SEATS
        self._phase = Phase.TURN
        self._turn = dealer
        self._forbid = (-1, -1)            # after a chow/pong: kinds not to discard (L9)
        self._claimed = False              # the turn began with a chow/pong (no kong, L9)
        self._drawn = -1                   # the tile just drawn (self-draw winning tile)
        self._drawn_tail = False           # ... from the tail (杠上开花)
        self._last_live = False            # ... or discard was the last live tile (河底)
        self._discard_tile = -1
        self._discarder = -1
        self._discard_last_live = False
        self._n_discards = 0
        self._n_claims = 0
        self._dealer_drew = False  # the dealer drew again: the first go-round is over (人胡)
        # Seats that have made a normal draw (the dealer's 17th counts): 推土机 comes before other
        # wins only for a seat that has not (source 胡牌規則 1: "時未摸進首張牌", L10).
        self._drew = [s == dealer for s in range(SEATS)]
        self._wall_draws = [0] * SEATS  # normal draws made by each seat (a first-draw win, GameRules)
        self._first_discards: list[int] = []  # discards before any claim (四风连打)
        self._kong_seats: list[int] = []       # who made each kong (四杠)
        self._four_kongs = -1                  # seat that made the 4th kong of several players
        self._draw_after = ""                  # the discard being decided on ends the hand
        self._options: dict[int, tuple[Action, ...]] = {}
        self._chosen: dict[int, Action] = {}
        self._bulldozer_claim: dict[int, bool] = {}
        self._rob_tile = -1
        self._rob_seat = -1
        self._sea: list[tuple[int, int]] = []  # 分张 queue: (seat, wall position)
        self._sea_flowers: list[list[int]] = [[] for _ in range(SEATS)]  # laid open in 分张, unreplaced
        self._sea_i = 0
        self._outcome: Outcome | None = None
        self._version = 0
        self._cache_version = -1
        self._cache: dict[int, tuple[Action, ...]] = {}
        self._deal()

    @classmethod
    def from_seed(cls, seed: bytes, ruleset: GameRules, dealer: int = 0) -> Game:
        """A hand dealt from a committed seed (``caishen.fair``)."""
        return cls(ruleset, fair.shuffled_wall(seed, ruleset), fair.dice(seed), dealer)

    # ------------------------------------------------------------------ public state

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def outcome(self) -> Outcome | None:
        return self._outcome

    @property
    def current(self) -> int:
        """The seat whose turn it is, or who made the discard / kong being decided on."""
        if self._phase is Phase.CLAIM:
            return self._discarder
        if self._phase is Phase.ROB:
            return self._rob_seat
        if self._phase is Phase.SEA_FLOOR:
            return self._sea[self._sea_i][0]
        return self._turn

    @property
    def just_drawn(self) -> int | None:
        """The tile the seat in turn has just drawn (its replacement after a kong or flower),
        while its turn began with that draw: ``None`` after a chow or pong and outside a turn.
        Only that seat may be shown it."""
        if self._phase is not Phase.TURN or self._claimed or self._drawn < 0:
            return None
        return self._drawn

    def to_move(self) -> tuple[int, ...]:
        """Seats that must act now (several while a discard or kong is being decided on)."""
        ph = self._phase
        if ph is Phase.TURN:
            return (self._turn,)
        if ph is Phase.CLAIM or ph is Phase.ROB:
            return tuple(s for s in self._options if s not in self._chosen)
        if ph is Phase.SEA_FLOOR:
            return (self._sea[self._sea_i][0],)
        return ()

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

    def hand(self, seat: int) -> Hand:
        """The full hand of a seat (referee view): concealed tiles, melds, all its flowers."""
        c = self._cnt[seat]
        concealed: list[int] = []
        for k in range(NUM_NON_FLOWER):
            if c[k]:
                concealed.extend((k,) * c[k])
        held = [k for k in range(NUM_NON_FLOWER, NUM_KINDS) if c[k]]
        return Hand.trusted(tuple(concealed), tuple(self._melds[seat]), tuple(sorted(held + self._open_flowers[seat])))

    def counts(self, seat: int) -> tuple[int, ...]:
        """Concealed tile counts of a seat per kind (referee view; flowers held included)."""
        return tuple(self._cnt[seat])

    def discards(self, seat: int) -> tuple[int, ...]:
        return tuple(self._discards[seat])

    def open_flowers(self, seat: int) -> tuple[int, ...]:
        return tuple(self._open_flowers[seat])

    def melds(self, seat: int) -> tuple[Meld, ...]:
        return tuple(self._melds[seat])

    def wall_positions_left(self) -> tuple[int, ...]:
        """Wall positions still holding a tile (the indicator excluded)."""
        in_wall = self._in_wall  # indexed, not enumerate(): mypyc cannot iterate a bytearray
        return tuple(i for i in range(len(in_wall)) if in_wall[i])

    @property
    def live_tiles(self) -> int:
        """Tiles that can still be drawn normally before 分张 (L6): 0 once 分张 has begun (when
        the dead wall moves up a stack, source 分张前补花补杠 (II)②, the raw count dips below 0)."""
        return 0 if self._sea else max(self._live(), 0)

    @property
    def dead_wall_tiles(self) -> int:
        return self._dead()

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now."""
        # Built on every decision of self-play with observations (the RL env): plain loops and
        # explicit four-seat tuples, no generators; per seat counts kept by _add (self._n); the
        # fields set by new_observation, not by the dataclass's (interpreted) __init__.
        c = self._cnt[seat]
        concealed: list[int] = []
        for k in range(NUM_NON_FLOWER):  # sorted by construction: the counts run in kind order
            n = c[k]
            while n:
                concealed.append(k)
                n -= 1
        flowers = list(self._open_flowers[seat])
        for k in range(NUM_NON_FLOWER, NUM_KINDS):
            if c[k]:
                flowers.append(k)
        flowers.sort()
        own = Hand.trusted(tuple(concealed), tuple(self._melds[seat]), tuple(flowers))
        phase = self._phase
        if self._sea:  # 分张 under way (or over): tiles not yet handed out
            sea_left = max(len(self._sea) - self._sea_i - 1, 0) if phase is Phase.SEA_FLOOR else 0
        else:
            sea_left = self.ruleset.sea_floor_tiles
        ms = self._melds
        fs = self._open_flowers
        ds = self._discards
        n4 = self._n
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
            melds=(tuple(ms[0]), tuple(ms[1]), tuple(ms[2]), tuple(ms[3])),
            flowers=(tuple(fs[0]), tuple(fs[1]), tuple(fs[2]), tuple(fs[3])),
            discards=(tuple(ds[0]), tuple(ds[1]), tuple(ds[2]), tuple(ds[3])),
            last_discard=self._discard_tile if phase is Phase.CLAIM else (
                self._rob_tile if phase is Phase.ROB else None),
            concealed_counts=(n4[0], n4[1], n4[2], n4[3]),
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
            if action == WIN:
                self._win(seat, WinHow.SELF_DRAW, self._drawn, None, sea_floor=True,
                          after_kong=self._drawn_tail)
            else:
                self._sea_next()
        self._version += 1

    # ------------------------------------------------------------------ wall

    def _tail_split(self) -> int:
        """1 when the tail stack holds a single tile besides the turned one (L6), else 0."""
        return (self._ti + self._tail_parity) & self._split

    def _dead(self) -> int:
        # L6: 10 whole stacks, plus the single of a split tail stack (10幢 or 10幢半).
        return 2 * self.ruleset.dead_wall_stacks + self._tail_split()

    def _live(self) -> int:
        if not self._split:  # no dead wall: head and tail meet, every tile left is live
            return self._live_base - len(self.draws)
        return self._live_base - self._hi - self._ti - self._tail_split()

    def _take(self, seat: int, pos: int) -> int:
        self.draws.append((seat, pos))
        k = self.wall[pos]
        self._in_wall[pos] = 0
        self._add(seat, k, 1)
        return k

    def _add(self, seat: int, k: int, d: int) -> None:
        """Change a concealed count; keeps the isolation masks right."""
        c = self._cnt[seat]
        n = c[k] + d
        c[k] = n
        self._n[seat] += d
        if self._wild[seat][k]:
            self._w[seat] += d
            if self._true_wild[seat][k]:
                self._tw[seat] += d
        elif k < NUM_NON_FLOWER:
            b = _BIT[k]
            if n:
                self._present[seat] |= b
            else:
                self._present[seat] &= ~b
            if n == 1:
                self._single[seat] |= b
            else:
                self._single[seat] &= ~b

    def _deal(self) -> None:
        # L4: 4 tiles (2 stacks) at a time from the dealer round the table to 16 each, then
        # the dealer's 17th.
        head = self._head
        per = 4
        rounds = self.ruleset.hand_size // per
        i = 0
        for _ in range(rounds):
            for j in range(SEATS):
                s = (self.dealer + j) % SEATS
                for _ in range(per):
                    self._take(s, head[i])
                    i += 1
        for j in range(SEATS):  # 13-tile rulesets: one more each
            s = (self.dealer + j) % SEATS
            for _ in range(self.ruleset.hand_size - rounds * per):
                self._take(s, head[i])
                i += 1
        self._drawn = self._take(self.dealer, head[i])
        i += 1
        self._hi = i
        # L7: the dealer replaces his flowers first; the others after his first discard.
        if self._settle_flowers(self.dealer):
            self._enter_turn(self.dealer)

    def _is_guest_flower(self, seat: int, k: int) -> bool:
        return k >= NUM_NON_FLOWER and not self._wild[seat][k]

    def _settle_flowers(self, seat: int) -> bool:
        """Lay open every 客花 the seat holds and replace them from the tail, all at once ("如有兩張花牌
        要補，應同時補上"), again while replacements are flowers (L7). False if a replacement
        started 分张 (the seat's turn is then over)."""
        while True:
            done = self._replace_flowers_once(seat)
            if done is None:
                return True
            if not done:
                return False

    def _replace_flowers_once(self, seat: int) -> bool | None:
        """Lay open the 客花 the seat holds now and take one replacement for each (L7). None: it
        held none; True: replaced (the replacements may be flowers again); False: 分张 began."""
        c = self._cnt[seat]
        wild = self._wild[seat]
        found = [k for k in range(NUM_NON_FLOWER, NUM_KINDS) if c[k] and not wild[k]]
        if not found:
            return None
        for k in found:
            self._add(seat, k, -1)
            self._open_flowers[seat].append(k)
        for _ in found:
            if not self._replace(seat):
                return False
        return True

    def _replace(self, seat: int) -> bool:
        """A replacement draw from the tail for a flower or kong (L6, L7), with the special
        cases just before the sea floor (source (五)6e (I), (II)). False if 分张 began."""
        live = self._live()
        if self._tail_split() or live >= 1 + self._split:
            while not self._in_wall[self._tail[self._ti]]:  # where head and tail meet (no dead wall)
                self._ti += 1
            self._drawn = self._take(seat, self._tail[self._ti])
            self._ti += 1
            self._drawn_tail = True
            self._last_live = False
            return True
        hi = self._hi
        head = self._head
        sea = self.ruleset.sea_floor_tiles
        if not sea:  # no sea floor and no tile left to replace with: the hand is drawn (G7.2)
            self._draw_game()
            return False
        if live == 0 and not self.ruleset.sea_floor_kong_no_discard:
            # (I)(2): the replacement is the last sea-floor tile; the next seats share the rest.
            pos = head[hi + sea - 1]
            others = [head[hi + j] for j in range(sea - 1)]
        else:
            # (II)(2) (and the (I) variant): from the tail, no discard; the dead wall moves up
            # so the others share the next sea-floor tiles.
            pos = self._tail[self._ti]
            self._ti += 1
            others = [head[hi + j] for j in range(sea - 1)]
        self._sea = [(seat, pos)] + [((seat + 1 + j) % SEATS, p) for j, p in enumerate(others[: SEATS - 1])]
        self._sea_i = -1
        self._drawn_tail = True
        self._sea_next()
        return False

    def _draw(self, seat: int) -> None:
        """Start ``seat``'s turn with a normal draw (or 分张 when only the sea floor is left)."""
        if seat == self.dealer:
            self._dealer_drew = True
        self._drew[seat] = True
        self._wall_draws[seat] += 1
        self._pong_ban[seat] = 0  # L11: a passed pong is allowed again after one's own draw
        if self._pending_flowers[seat]:  # defensive, as in _claim
            self._pending_flowers[seat] = False
            if not self._settle_flowers(seat):
                return
        if self._live() <= 0:
            hi = self._hi
            self._sea = [((seat + j) % SEATS, self._head[hi + j]) for j in range(self.ruleset.sea_floor_tiles)]
            self._sea_i = -1
            self._drawn_tail = False
            self._sea_next()
            return
        while not self._in_wall[self._head[self._hi]]:  # where head and tail meet (no dead wall)
            self._hi += 1
        self._drawn = self._take(seat, self._head[self._hi])
        self._hi += 1
        self._drawn_tail = False
        self._last_live = self._live() == 0
        if self._is_guest_flower(seat, self._drawn) and not self._settle_flowers(seat):
            return
        self._enter_turn(seat)

    def _enter_turn(self, seat: int) -> None:
        self._phase = Phase.TURN
        self._turn = seat
        self._claimed = False
        self._forbid = (-1, -1)

    def _sea_next(self) -> None:
        """Give the next sea-floor tile (分张, L17); stop at a seat that can win."""
        while True:
            self._sea_i += 1
            if self._sea_i >= len(self._sea):
                self._draw_game()
                return
            seat, pos = self._sea[self._sea_i]
            k = self._take(seat, pos)
            self._drawn = k
            if self._sea_i > 0:
                self._drawn_tail = False
            if self._is_guest_flower(seat, k):
                # No replacement in 分张: the flower is laid open and the hand stays short.
                self._add(seat, k, -1)
                self._open_flowers[seat].append(k)
                self._sea_flowers[seat].append(k)
                continue
            self._phase = Phase.SEA_FLOOR
            if self._can_self_win(seat):
                return

    def _draw_game(self, reason: DrawReason = DrawReason.WALL, draw_type: str | None = None,
                   declared_by: int | None = None) -> None:
        self._phase = Phase.OVER
        self._outcome = Outcome(
            winner=None, how=None, tile=None, from_seat=None, dealer=self.dealer,
            indicator=self.indicator, hands=tuple(self.hand(s) for s in range(SEATS)),
            wilds=self.wilds, draw_reason=reason, claims=tuple(self._claims),
            unreplaced_flowers=self._unreplaced(), draw_type=draw_type, declared_by=declared_by,
        )

    def _unreplaced(self) -> tuple[tuple[int, ...], ...]:
        """Per seat, the flowers without a replacement: laid open in 分张, or guest flowers
        still held (a seat whose turn to replace had not come, L7)."""
        out = tuple(
            tuple(self._sea_flowers[s]) + tuple(
                k for k in range(NUM_NON_FLOWER, NUM_KINDS) if self._cnt[s][k] and self._is_guest_flower(s, k))
            for s in range(SEATS)
        )
        return out if any(out) else ()

    # ------------------------------------------------------------------ win checks

    def _could_win(self, seat: int, extra: int) -> bool:
        """Cheap necessary condition for a win with ``extra`` added (-1: none): enough 正财神
        for 推土机 (L8), or the right size and every isolated natural tile (held once, no
        natural tile within two of it in its suit) paired with a wild of its own."""
        tw = self._tw[seat]
        w = self._w[seat]
        present = self._present[seat]
        single = self._single[seat]
        size = self._n[seat] + 3 * len(self._melds[seat])
        if extra >= 0:
            size += 1
            if self._wild[seat][extra]:
                w += 1
                if self._true_wild[seat][extra]:
                    tw += 1
            elif extra < NUM_NON_FLOWER:
                b = _BIT[extra]
                n = self._cnt[seat][extra]
                present |= b
                if n == 0:
                    single |= b
                elif n == 1:
                    single &= ~b
        if tw >= self._bulldozer_need:
            return True
        if size != self._win_size:
            return False
        if self._pending_flowers[seat]:
            c = self._cnt[seat]
            if any(c[k] and not self._wild[seat][k] for k in range(NUM_NON_FLOWER, NUM_KINDS)):
                return False  # a flower still to be replaced: the hand is short
        near = (present << 1) | (present << 2) | (present >> 1) | (present >> 2)
        return (single & ~near).bit_count() <= w

    def _wins_with(self, seat: int, extra: int) -> bool:
        could = self._could_win(seat, extra)
        if not could and not self._special:  # the variant's own shapes: GameRules.special_win
            return False
        hand = self._win_hand(seat, extra)  # built once for both tests
        if could and _is_win(hand, self.ruleset, self.wilds[seat]):
            return True
        return self._special and self.ruleset.special_win(hand, self.wilds[seat])

    def _win_hand(self, seat: int, extra: int) -> Hand:
        """The seat's hand with ``extra`` added, for is_win. Built without Hand's checks: the
        engine's counts are valid by construction and the tuples come out sorted."""
        c = self._cnt[seat]
        conc: list[int] = []
        for k in range(NUM_NON_FLOWER):
            n = c[k]
            if n:
                conc.extend((k,) * n)
        flowers = [k for k in range(NUM_NON_FLOWER, NUM_KINDS) if c[k]]
        flowers.extend(self._open_flowers[seat])
        if extra >= NUM_NON_FLOWER:
            flowers.append(extra)
        elif extra >= 0:
            insort(conc, extra)
        return Hand.trusted(tuple(conc), tuple(self._melds[seat]), tuple(sorted(flowers)))

    def _can_self_win(self, seat: int) -> bool:
        if self._decides:
            return self._own_turn_win(seat) is not None
        return self._wins_with(seat, -1) or self._first_draw_win(seat)

    def _first_draw_win(self, seat: int) -> bool:
        """A win of the variant's first-draw shape: on the seat's dealt hand (the dealer) or its
        first normal draw, before any chow, pong or exposed kong of anyone (GameRules.first_draw_win)."""
        if self._n_claims or self._claimed or self._phase is not Phase.TURN or seat != self._turn:
            return False
        if (self._n_discards if seat == self.dealer else self._wall_draws[seat] - 1):
            return False
        return self.ruleset.first_draw_win(self._win_hand(seat, -1), self.wilds[seat])

    def _first_turn(self, seat: int) -> bool:
        """The dealer's first 14 tiles, before any discard, claim or kong (天胡)."""
        return seat == self.dealer and self._n_discards == 0 and self._n_claims == 0 and not self._kong_seats

    def _own_turn_win(self, seat: int) -> str | None:
        """The variant's win type for ``seat`` on its turn now (only when it decides wins)."""
        if self._phase is not Phase.TURN or seat != self._turn or self._claimed:
            return None
        return self.ruleset.own_turn_win(self._win_hand(seat, -1), self.indicator, self._first_turn(seat))

    def _has_bulldozer(self, seat: int) -> bool:
        return self._tw[seat] >= self._bulldozer_need

    def _single_wild_left(self, seat: int) -> bool:
        return self._n[seat] == 1 and self._w[seat] == 1

    def _may_win_on(self, seat: int, tile: int, robbing: bool) -> bool:
        """Win on another seat's discard (or robbed kong) is allowed and possible."""
        if self._decides:  # the variant's discard wins only; no robbing a kong
            return not robbing and self.ruleset.discard_win(self._win_hand(seat, -1), tile, self.indicator) is not None
        if self._pass_win[seat] or (tile == self._last_discard[seat] and not self._dudiao[seat]):
            return False  # L11: 过水, and not on one's own discard of this go-round (but 獨吊)
        if self._single_wild_left(seat) and (
            not self.ruleset.wild_single_wait_any_tile
            or (robbing and not self.ruleset.rob_kong_with_wild_pair)
        ):
            return False  # L16 / L10 switches on 财神单吊
        return self._wins_with(seat, tile)

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
        c = self._cnt[seat]
        if self._kong_round:  # the opening kong round: concealed kongs of the fours offered, or pass
            offer = self._kong_offer[seat]
            return (*(CONCEALED_KONGS[k] for k in range(NUM_NON_FLOWER) if offer >> k & 1 and c[k] == 4), PASS)
        m = self._present[seat]  # natural (non-wild) kinds held: the discardable ones (L8)
        out: list[Action] = []
        if self._claimed:
            f1, f2 = self._forbid
            # L9 / source 小明杠: the fourth of an earlier pong is never discarded, even in the
            # turn of a claim, where it cannot be konged either ("若不補槓，則不能打出這張牌").
            m &= ~self._pong_bits(seat)
            while m:
                low = m & -m
                m ^= low
                k = _KIND_AT[low.bit_length() - 1]
                if k != f1 and k != f2:
                    out.append(DISCARDS[k])
            return tuple(out)
        if self._can_self_win(seat):
            out.append(WIN)
        declare = self._declare and self._may_declare_draw(seat)
        pongs = self._pongs[seat]
        discards: list[Action] = []
        while m:
            low = m & -m
            m ^= low
            k = _KIND_AT[low.bit_length() - 1]
            if c[k] == 4:
                out.append(CONCEALED_KONGS[k])
            if pongs >> k & 1:
                # Source 补杠: the fourth of one's own pong is konged, not discarded.
                out.append(ADDED_KONGS[k])
            else:
                discards.append(DISCARDS[k])
        out.extend(discards)
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

    def _pong_bits(self, seat: int) -> int:
        """The isolation-mask bits (``_BIT``) of the kinds ``seat`` has ponged."""
        pongs = self._pongs[seat]
        out = 0
        while pongs:
            low = pongs & -pongs
            pongs ^= low
            out |= _BIT[low.bit_length() - 1]
        return out

    def _discard_left_after(self, seat: int, used: tuple[int, ...], forbid: tuple[int, int]) -> bool:
        """After a claim using ``used`` from the hand, would a tile be left that may be
        discarded (not wild, not a forbidden kind)?"""
        c = self._cnt[seat]
        left = self._n[seat] - self._w[seat] - len(used)
        f1, f2 = forbid
        if f1 >= 0:
            left -= c[f1] - used.count(f1)
        if f2 >= 0 and f2 != f1:
            left -= c[f2] - used.count(f2)
        pongs = self._pongs[seat]
        while pongs:  # the fourth of an earlier pong cannot be discarded either (L9)
            low = pongs & -pongs
            pongs ^= low
            k = low.bit_length() - 1
            if k != f1 and k != f2:
                left -= c[k] - used.count(k)
        if self._pending_flowers[seat]:  # guest flowers still held cannot be discarded either
            left -= sum(c[k] for k in range(NUM_NON_FLOWER, NUM_KINDS) if not self._wild[seat][k])
        return left > 0

    def _claim_options(self, seat: int, tile: int, discarder: int) -> tuple[Action, ...]:
        c = self._cnt[seat]
        n = c[tile]
        chow_seat = seat == (discarder + 1) % SEATS and self.ruleset.allow_chow
        if n < 2 and not chow_seat and self._tw[seat] < self._bulldozer_need and not self._special and (
            not self._could_win(seat, tile)
        ):
            return ()  # only a win could be claimed, and the pre-filter rules it out (not the variant's shapes)
        wild = self._wild[seat]
        out: list[Action] = []
        bulldozer = self._has_bulldozer(seat) and self._wins_with(seat, -1)
        self._bulldozer_claim[seat] = False
        if bulldozer:
            out.append(WIN)
            self._bulldozer_claim[seat] = True
        elif self._may_win_on(seat, tile, False):
            out.append(WIN)
        if wild[tile]:
            return (*out, PASS) if out else ()
        if n == 3:
            out.append(EXPOSED_KONGS[tile])
        if n >= 2 and not self._pong_ban[seat] >> tile & 1 and self._discard_left_after(
            seat, (tile, tile), (tile, -1)
        ):
            out.append(PONGS[tile])
        if (
            chow_seat
            and tile < NUM_SUITED
            and tile != self._last_discard[seat]  # source (五)f: not the kind just discarded
        ):
            for a, b, twin, act in _CHOW_WAYS[tile]:
                if c[a] and c[b] and not wild[a] and not wild[b]:
                    if self._discard_left_after(seat, (a, b), (tile, twin)):
                        out.append(act)
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
            k = a.tile
            self._add(seat, k, -4)
            self._melds[seat].append(Meld.kong(k, MeldKind.CONCEALED_KONG))
            self._claims.append(Claim(seat, k, MeldKind.CONCEALED_KONG, None))
            self._after_kong(seat)
        elif kind is ActionKind.ADDED_KONG:
            self._added_kong(seat, a.tile)
        elif kind is ActionKind.DECLARE_DRAW:
            self._draw_game(DrawReason.DECLARED, self._draw_declaration(seat), seat)
        else:  # pragma: no cover - legal_actions never offers it
            raise IllegalActionError(f"{a} is not a turn action")

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
        self._add(seat, k, -1)
        self._discards[seat].append(k)
        self._pass_win[seat] = False  # L11: 过水 ends with one's own discard
        self._last_discard[seat] = k
        # Source (五)G 獨吊牌型的特殊情況: "A沒選擇胡牌，而是作出了吃或碰的舉動，而後把手中的將頭…拆開打出一張，
        # 從而使自己形成獨吊的牌型，此時同一圈內若有其它玩家跟打出同樣的牌，A也可胡。"
        self._dudiao[seat] = (self._claimed and self._claim_over_win and self._n[seat] == 1
                              and self._cnt[seat][k] == 1)
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
            seats = [s for s in seats if self._pending_flowers[s]]
            for s in seats:
                self._pending_flowers[s] = False
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
        b = _BIT[k]  # a discard is never wild for anyone: wild kinds are never discarded (L8)
        fast = not self._special  # the variant's own shapes pass the pre-filter's test (GameRules.special_win)
        for j in range(1, SEATS):
            s = (seat + j) % SEATS
            if fast and self._cnt[s][k] < 2 and not (chow and s == nxt) and self._tw[s] < self._bulldozer_need:
                # Inline fast path of _claim_options/_could_win: only a win is possible.
                if self._pass_win[s] or (k == self._last_discard[s] and not self._dudiao[s]):
                    continue
                p = self._present[s] | b
                single = self._single[s]
                single = single | b if not self._cnt[s][k] else single & ~b
                if (single & ~((p << 1) | (p << 2) | (p >> 1) | (p >> 2))).bit_count() > self._w[s]:
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

    def _fours(self, seat: int) -> int:
        """Bitmask (``1 << kind``) of the natural kinds ``seat`` holds four of."""
        c = self._cnt[seat]
        wild = self._wild[seat]
        out = 0
        for k in range(NUM_NON_FLOWER):
            if c[k] == 4 and not wild[k]:
                out |= 1 << k
        return out

    def _next_kong_seat(self) -> bool:
        """Ask the next seat of the opening kong round that holds a four it has not declined;
        further rounds for fours made by a round kong's replacement ("補槓槓出來的…槓需在其他玩家都
        槓完一圈的情況下才能再槓"). False when the round is over."""
        while True:
            while self._kong_round:
                s = self._kong_round[0]
                offer = self._fours(s) & ~self._kong_declined[s]
                if offer:
                    self._kong_offer[s] = offer
                    self._konged_in_round[s] = False
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
        if a.kind is ActionKind.CONCEALED_KONG:
            k = a.tile
            self._kong_offer[seat] &= ~(1 << k)
            self._konged_in_round[seat] = True
            self._add(seat, k, -4)
            self._melds[seat].append(Meld.kong(k, MeldKind.CONCEALED_KONG))
            self._claims.append(Claim(seat, k, MeldKind.CONCEALED_KONG, None))
            if not self._after_kong(seat):  # pragma: no cover - the wall is full at the start
                self._kong_round = []
                self._kong_next = []
                return
            if self._kong_offer[seat] & self._fours(seat):
                return  # "每家都必須全部補完槓才能輪到下家": the same seat goes on
        else:  # PASS: the four is kept (it may be konged in a later own turn: "暗槓…可以往後再補")
            self._kong_declined[seat] |= self._kong_offer[seat]
        self._kong_offer[seat] = 0
        self._kong_round.pop(0)
        if self._konged_in_round[seat] and self._fours(seat) & ~self._kong_declined[seat]:
            self._kong_next.append(seat)
        if not self._next_kong_seat():
            self._open_claims(self._discarder, self._discard_tile)

    def _resolve_claims(self) -> None:
        tile = self._discard_tile
        d = self._discarder
        order = [(d + j) % SEATS for j in range(1, SEATS)]
        chosen = self._chosen
        winner = -1
        if self.ruleset.draw_on_three_wins and sum(1 for s in order if chosen.get(s) == WIN) == len(order):
            self._draw_game(DrawReason.THREE_WINS)  # 一炮三響 / 三炮同響 (L17 switch)
            return
        # L10 + source 胡牌規則1: a bulldozer declared before the seat's first draw ("時未摸進首張牌，
        # 補花補槓除外") comes first, even before 地胡; otherwise wins go in order from the discarder.
        for s in order:
            if chosen.get(s) == WIN and self._bulldozer_claim.get(s) and not self._drew[s]:
                winner = s
                break
        if winner < 0:
            for s in order:
                if chosen.get(s) == WIN:
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
            if WIN in opts and passed != WIN and not self._bulldozer_claim.get(s):
                self._pass_win[s] = True
            if PONGS[tile] in opts and passed != PONGS[tile]:
                self._pong_ban[s] |= 1 << tile
        for kind in (ActionKind.EXPOSED_KONG, ActionKind.PONG, ActionKind.CHOW):
            for s in order:
                act = chosen.get(s)
                if act is not None and act.kind is kind:
                    self._claim(s, act)
                    return
        self._draw((d + 1) % SEATS)

    def _claim(self, seat: int, a: Action) -> None:
        tile = a.tile
        self._claim_over_win = WIN in self._options.get(seat, ()) and not self._bulldozer_claim.get(seat)
        self._discards[self._discarder].pop()
        self._n_claims += 1
        if a.kind is ActionKind.EXPOSED_KONG:
            self._add(seat, tile, -3)
            self._melds[seat].append(Meld.kong(tile, MeldKind.EXPOSED_KONG))
            self._claims.append(Claim(seat, tile, MeldKind.EXPOSED_KONG, self._discarder))
        elif a.kind is ActionKind.PONG:
            self._add(seat, tile, -2)
            self._melds[seat].append(Meld.pong(tile))
            self._pongs[seat] |= 1 << tile
            self._claims.append(Claim(seat, tile, MeldKind.PONG, self._discarder))
            self._pong_fed[(seat, tile)] = self._discarder
        else:
            low = a.chow_low
            for x in (low, low + 1, low + 2):
                if x != tile:
                    self._add(seat, x, -1)
            self._melds[seat].append(Meld.chow(tile, low))
        # L7: flowers still held are replaced before the claimer's discard (defensive: every
        # seat has replaced by the time anyone can claim, see _discard).
        if self._pending_flowers[seat]:
            self._pending_flowers[seat] = False
            if not self._settle_flowers(seat):
                return
        if a.kind is ActionKind.EXPOSED_KONG:
            self._after_kong(seat)
            return
        self._enter_turn(seat)
        self._claimed = True
        twin = _chow_twin(tile, a.chow_low) if a.kind is ActionKind.CHOW else -1
        self._forbid = (tile, twin)
        if not self._turn_actions(seat):  # pragma: no cover - claims that strand are refused
            raise AssertionError("claim left no legal discard")

    def _added_kong(self, seat: int, k: int) -> None:
        self._pass_win[seat] = False  # L11 source: 过水 ends with a discard or an added kong
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
        ms = self._melds[seat]
        for i, m in enumerate(ms):
            if m.kind is MeldKind.PONG and m.tiles[0] == k:
                ms[i] = Meld.kong(k, MeldKind.ADDED_KONG)
                break
        self._pongs[seat] &= ~(1 << k)
        self._add(seat, k, -1)
        self._claims.append(Claim(seat, k, MeldKind.ADDED_KONG, self._pong_fed.get((seat, k))))
        self._rob_tile = -1
        self._after_kong(seat)

    def _resolve_rob(self) -> None:
        konger = self._rob_seat
        for j in range(1, SEATS):
            s = (konger + j) % SEATS
            if self._chosen.get(s) == WIN:
                self._win(s, WinHow.ROB_KONG, self._rob_tile, konger)
                return
        for s in self._options:
            self._pass_win[s] = True  # L11: passing a win, robbing included
        self._finish_added_kong()

    def _win(
        self, seat: int, how: WinHow, tile: int, from_seat: int | None, *, heavenly: bool = False,
        earthly: bool = False, after_kong: bool = False, sea_floor: bool = False,
        last_live: bool = False, win_type: str | None = None,
    ) -> None:
        if how is WinHow.DISCARD or how is WinHow.ROB_KONG:
            self._add(seat, tile, 1)
            if how is WinHow.DISCARD and from_seat is not None:
                self._discards[from_seat].pop()
            elif from_seat is not None:  # robbed: the tile leaves the konger's hand (L10)
                self._add(from_seat, tile, -1)
        self._phase = Phase.OVER
        self._turn = seat
        out = Outcome(
            winner=seat, how=how, tile=tile if tile >= 0 else None, from_seat=from_seat, dealer=self.dealer,
            indicator=self.indicator, hands=tuple(self.hand(s) for s in range(SEATS)),
            wilds=self.wilds, heavenly=heavenly, earthly=earthly, after_kong=after_kong,
            human=(self.ruleset.human_win and not heavenly and not earthly and self._n_claims == 0
                   and not self._dealer_drew),
            sea_floor=sea_floor, last_live_tile=last_live, win_type=win_type, claims=tuple(self._claims),
            unreplaced_flowers=self._unreplaced(), discards=tuple(tuple(d) for d in self._discards),
            live_tiles=self.live_tiles,
        )
        self._outcome = out

def _chow_ways(tile: int) -> tuple[tuple[int, int, int, Action], ...]:
    """For a suited ``tile``: (the two tiles from the hand, the twin not to discard after,
    the action) of each chow it can complete."""
    out = []
    for low in (tile - 2, tile - 1, tile):
        if low < tile - tile % 9 or low % 9 > 6:
            continue
        a, b = (x for x in (low, low + 1, low + 2) if x != tile)
        out.append((a, b, _chow_twin(tile, low), CHOWS[(tile, low)]))
    return tuple(out)


def _name(k: int) -> str:
    return tile_name(k) if 0 <= k < NUM_KINDS else str(k)


def _chow_twin(claimed: int, low: int) -> int:
    """After chowing ``claimed`` into ``low..low+2``: the tile that would make the same
    sequence with the two tiles from the hand (L9), or -1."""
    if claimed == low and low % 9 <= 5:
        return low + 3
    if claimed == low + 2 and low % 9 >= 1:
        return low - 1
    return -1


_CHOW_WAYS: Final = tuple(_chow_ways(k) if k < NUM_SUITED else () for k in range(NUM_KINDS))
_EXPECTED: dict[GameRules, list[int]] = {}


def _check_wall(wall: tuple[int, ...], ruleset: GameRules) -> None:
    want = _EXPECTED.get(ruleset)
    if want is None:
        want = [0] * NUM_KINDS
        for k in fair.tile_set(ruleset):
            want[k] += 1
        _EXPECTED[ruleset] = want
    if len(wall) != sum(want):
        raise ValueError(f"a wall must hold {sum(want)} tiles, not {len(wall)}")
    have = [0] * NUM_KINDS
    for i, k in enumerate(wall):
        if type(k) is not int or not 0 <= k < NUM_KINDS or not want[k]:
            raise ValueError(f"wall position {i}: {k!r} is not a tile of this ruleset")
        have[k] += 1
    if have != want:
        bad = next(k for k in range(NUM_KINDS) if have[k] != want[k])
        raise ValueError(f"the wall holds {have[bad]} of {tile_name(bad)}, expected {want[bad]}")
