"""The state of one hand 一盘 below its moves: :class:`HandState`, the base of
:class:`caishen.engine.game.Game`.

The wall (L4, L6) and the draws from it, the deal, flower replacement 补花 (L7), 分张 (L17),
the four seats (:class:`~caishen.engine.seat.SeatState`), whose turn it is, the win checks the
moves ask, and the hand's outcome. What a seat may do now and what each move does (turns,
claims, robbing a kong, the opening kong round) is :class:`~caishen.engine.game.Game`'s.
"""

from __future__ import annotations

from typing import Final

from caishen.engine.actions import Action
from caishen.engine.observation import Observation, Phase
from caishen.engine.outcome import Claim, DrawReason, Outcome, WinHow
from caishen.engine.rules import GameRules
from caishen.engine.seat import SeatState
from caishen.engine.wall import WallLayout, check_wall
from caishen.errors import CaishenError
from caishen.hand import Hand, Meld
from caishen.shapes.analysis import arrangements, pairs_wild_with
from caishen.shapes.analysis import is_win as _is_win
from caishen.tiles import NUM_KINDS, NUM_NON_FLOWER, is_flower

SEATS: Final = 4


class HandState:
    """The state of one hand (see the module docstring). Build a :class:`~caishen.engine.game.Game`."""

    def __new__(cls, *args: object, **kwargs: object) -> HandState:
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
        check_wall(wall, ruleset)
        if len(dice) != 4 or any(type(d) is not int or not 1 <= d <= 6 for d in dice):
            raise CaishenError(f"dice must be four rolls 1..6, not {dice!r}", code="bad-dice")
        if dealer not in range(SEATS):
            raise CaishenError(f"dealer must be a seat 0-3, not {dealer!r}", code="no-seat")
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
        # 正财神 for 推土机 (L8): the indicator's kind; with a flower indicator also the wild
        # flowers (docs/rules L5); where the ruleset says so, the seat's own flower too (L8
        # 金乡灵溪). Only a pre-filter and a hint: analysis.is_win decides.
        any_flower = (self.indicator is not None and is_flower(self.indicator)) or (
            ruleset.bulldozer and ruleset.bulldozer_own_flower)
        self._seats = [
            SeatState([k in self.wilds[s] for k in range(NUM_KINDS)],
                      [k in self.wilds[s] and (any_flower or not is_flower(k)) for k in range(NUM_KINDS)],
                      s != dealer, s == dealer)
            for s in range(SEATS)
        ]
        self.draws: list[tuple[int, int]] = []  # (seat, wall position) of every tile taken, deal included
        self.move_stack: list[tuple[int, Action]] = []  # (seat, action) of every move made, in order
        self._decisions: list[Observation | None] = [None] * SEATS
        self._win_size = ruleset.hand_size + 1
        self._bulldozer_need = ruleset.bulldozer_wilds if ruleset.bulldozer else 99
        self._claim_over_win = False       # the turn's chow/pong was chosen over an offered win
        # The opening concealed-kong round (L9, source 補槓: "配牌補完所有花後方可補暗槓"): seats still
        # to be asked in this round and seats asked again in the next one (per seat: SeatState).
        self._kong_round: list[int] = []
        self._kong_next: list[int] = []
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
        self._sea_i = 0
        self._outcome: Outcome | None = None
        self._version = 0
        self._cache_version = -1
        self._cache: dict[int, tuple[Action, ...]] = {}
        self._deal()

    # ------------------------------------------------------------------ public state

    def __repr__(self) -> str:
        """One line a developer can read: the variant, where the hand is, who acts, how far."""
        if self._phase is Phase.OVER:
            out = self._outcome
            where = "over, " + ("drawn" if out is None or out.winner is None else f"won by seat {out.winner}")
        else:
            where = f"{self._phase.value}, seats to move {list(self.to_move())}"
        return (f"<{type(self).__name__} {self.ruleset.name}: {where}; {len(self.move_stack)} moves, "
                f"{self.live_tiles} live tiles>")

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

    def hand(self, seat: int) -> Hand:
        """The full hand of a seat (referee view): concealed tiles, melds, all its flowers."""
        return self._seats[seat].hand()

    def counts(self, seat: int) -> tuple[int, ...]:
        """Concealed tile counts of a seat per kind (referee view; flowers held included)."""
        return tuple(self._seats[seat].cnt)

    def discards(self, seat: int) -> tuple[int, ...]:
        return tuple(self._seats[seat].discards)

    def open_flowers(self, seat: int) -> tuple[int, ...]:
        return tuple(self._seats[seat].open_flowers)

    def melds(self, seat: int) -> tuple[Meld, ...]:
        return tuple(self._seats[seat].melds)

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
        self._seats[seat].add(k, 1)
        return k

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
        return k >= NUM_NON_FLOWER and not self._seats[seat].wild[k]

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
        st = self._seats[seat]
        found = st.guest_flowers()
        if not found:
            return None
        for k in found:
            st.add(k, -1)
            st.open_flowers.append(k)
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
        st = self._seats[seat]
        st.drew = True
        st.wall_draws += 1
        st.pong_ban = 0  # L11: a passed pong is allowed again after one's own draw
        if st.pending_flowers:  # defensive, as in _claim
            st.pending_flowers = False
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
                st = self._seats[seat]
                st.add(k, -1)
                st.open_flowers.append(k)
                st.sea_flowers.append(k)
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
        out = tuple(tuple(st.sea_flowers) + tuple(st.guest_flowers()) for st in self._seats)
        return out if any(out) else ()

    # ------------------------------------------------------------------ win checks

    def _wins_with(self, seat: int, extra: int) -> bool:
        could = self._seats[seat].could_win(extra, self._bulldozer_need, self._win_size)
        if not could and not self._special:  # the variant's own shapes: GameRules.special_win
            return False
        hand = self._win_hand(seat, extra)  # built once for both tests
        if could and _is_win(hand, self.ruleset, self.wilds[seat]):
            return True
        return self._special and self.ruleset.special_win(hand, self.wilds[seat])

    def _win_hand(self, seat: int, extra: int) -> Hand:
        """The seat's hand with ``extra`` added (-1: none), for the analyser."""
        return self._seats[seat].hand(extra)

    def _can_self_win(self, seat: int) -> bool:
        if self._decides:
            return self._own_turn_win(seat) is not None
        return self._wins_with(seat, -1) or self._first_draw_win(seat)

    def _first_draw_win(self, seat: int) -> bool:
        """A win of the variant's first-draw shape: on the seat's dealt hand (the dealer) or its
        first normal draw, before any chow, pong or exposed kong of anyone (GameRules.first_draw_win)."""
        if self._n_claims or self._claimed or self._phase is not Phase.TURN or seat != self._turn:
            return False
        if (self._n_discards if seat == self.dealer else self._seats[seat].wall_draws - 1):
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
        return self._seats[seat].tw >= self._bulldozer_need

    def _may_win_on(self, seat: int, tile: int, robbing: bool) -> bool:
        """Win on another seat's discard (or robbed kong) is allowed and possible."""
        if self._decides:  # the variant's discard wins only; no robbing a kong
            return not robbing and self.ruleset.discard_win(self._win_hand(seat, -1), tile, self.indicator) is not None
        st = self._seats[seat]
        if st.pass_win or (tile == st.last_discard and not st.dudiao):
            return False  # L11: 过水, and not on one's own discard of this go-round (but 獨吊)
        if st.n == 1 and st.w == 1 and not self.ruleset.wild_single_wait_any_tile:
            return False  # L16 switch on 财神单吊: a hand left with a single wild
        if robbing and not self.ruleset.rob_kong_with_wild_pair:
            return self._robs_without_wild_pair(seat, tile)
        return self._wins_with(seat, tile)

    def _robs_without_wild_pair(self, seat: int, tile: int) -> bool:
        """L10 switch ("搶槓時不允許用一個財神和被搶牌形成一對將"): robbing ``tile`` wins only
        through an arrangement that does not pair a wild with the robbed tile (the robbed
        kind's other three copies are in the kong: a wild beside a natural one is that pair),
        or through the variant's own shapes."""
        if not self._wins_with(seat, tile):
            return False
        hand = self._win_hand(seat, tile)
        if any(not pairs_wild_with(a, tile) for a in arrangements(hand, self.ruleset, self.wilds[seat])):
            return True
        return self._special and self.ruleset.special_win(hand, self.wilds[seat])

    def _win(
        self, seat: int, how: WinHow, tile: int, from_seat: int | None, *, heavenly: bool = False,
        earthly: bool = False, after_kong: bool = False, sea_floor: bool = False,
        last_live: bool = False, win_type: str | None = None,
    ) -> None:
        if how is WinHow.DISCARD or how is WinHow.ROB_KONG:
            self._seats[seat].add(tile, 1)
            if how is WinHow.DISCARD and from_seat is not None:
                self._seats[from_seat].discards.pop()
            elif from_seat is not None:  # robbed: the tile leaves the konger's hand (L10)
                self._seats[from_seat].add(tile, -1)
        self._phase = Phase.OVER
        self._turn = seat
        out = Outcome(
            winner=seat, how=how, tile=tile if tile >= 0 else None, from_seat=from_seat, dealer=self.dealer,
            indicator=self.indicator, hands=tuple(self.hand(s) for s in range(SEATS)),
            wilds=self.wilds, heavenly=heavenly, earthly=earthly, after_kong=after_kong,
            human=(self.ruleset.human_win and not heavenly and not earthly and self._n_claims == 0
                   and not self._dealer_drew),
            sea_floor=sea_floor, last_live_tile=last_live, win_type=win_type, claims=tuple(self._claims),
            unreplaced_flowers=self._unreplaced(), discards=tuple(tuple(st.discards) for st in self._seats),
            live_tiles=self.live_tiles,
        )
        self._outcome = out
