"""Issue 29 item 5: moves signed by the person who made them (docs/fairness.md, "Signed
moves"). A record's person moves carry ECDSA P-256 signatures by the seat's own key over
(room, hand, step, action); ``caishen verify`` checks each. A move the server signed in a
person's name fails; bots' and stand-ins' moves say ``server``; an unsigned person's move is
accepted and counted as unsigned."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from caishen.cli import main as cli_main
from caishen.engine.actions import ActionKind
from caishen.table.match import Match
from caishen.table.movesig import accepted, key_hex, move_message, sign_move, steps, verify_move
from caishen.table.play import play
from caishen.table.players import RandomPlayer, player_rng
from caishen.table.record import MatchRecord, Mix, VerifyError, loads
from caishen.table.replay import verify
from caishen.variants.longgang.rules import LONGGANG

ROOM = "K7Q2M9XW4PZT"
ANN = ec.generate_private_key(ec.SECP256R1())      # player 0, who signs her moves
SERVER = ec.generate_private_key(ec.SECP256R1())   # a key the server holds
MINE = bytes(range(32))


def _signed_match(hands: int = 3, older: bool = True, seed: bytes = b"sig") -> MatchRecord:
    """Player 0 signs every move; player 2 is a person on a client that does not sign; players
    1 and 3 are bots. ``older``: each move signed at the step records signed before 2026-12-07
    counted (every move but the passes before it); else at :func:`movesig.steps`' (an answer
    at the step after the move it answers)."""
    m = Match(LONGGANG.replace(hands_per_match=hands), [RandomPlayer(player_rng(b"sig", i)) for i in range(4)],
              seed=seed)
    m.room = ROOM
    while not m.over:
        seats = m.seats
        values = tuple(MINE if seats[s] == 0 else "none" if seats[s] == 2 else "bot" for s in range(4))
        ann = seats.index(0)
        game = m.deal(Mix(values, ("commit", f"contribute {ann}", "deal")))
        play(game, [m.players[p] for p in seats])
        marks: list[tuple[str | None, str | None]] = []
        at = steps([(seat, a.text()) for seat, a in game.move_stack])
        for (seat, a), (new, old) in zip(game.move_stack, at, strict=True):
            if seats[seat] == 0:
                step = old if older else new
                marks.append((sign_move(ANN, move_message(ROOM, len(m.hands), step, a.text())), key_hex(ANN)))
            else:
                marks.append(("unsigned" if seats[seat] == 2 else "server", None))
        m.finish(game, marks)
    return m.record()


@pytest.fixture(scope="module")
def rec() -> MatchRecord:
    return _signed_match()


def _edited(rec: MatchRecord, change: Callable[[dict[str, Any]], object]) -> MatchRecord:
    d = copy.deepcopy(rec.to_json())
    change(d)
    return loads(json.dumps(d))


def _ann_move(rec: MatchRecord, hand: int = 1) -> int:
    """The index of a move of Ann's in ``hand`` (its 3rd)."""
    h = rec.hands[hand]
    mine = [i for i, (seat, _) in enumerate(h.actions) if h.seats[seat] == 0]
    return mine[2]


def test_a_signed_record_verifies_and_counts_the_moves(rec: MatchRecord) -> None:
    s = verify(rec)
    h = rec.hands[0]
    ann = h.seats.index(0)
    assert h.signers == tuple(key_hex(ANN) if seat == ann else None for seat in range(4))
    ours = sum(sum(1 for seat, _ in x.actions if x.seats[seat] == 0) for x in rec.hands)
    theirs = sum(sum(1 for seat, _ in x.actions if x.seats[seat] == 2) for x in rec.hands)
    assert (s.signed, s.unsigned, s.by_server) == (ours, theirs, s.actions - ours - theirs)
    assert s.signed > 20 and s.unsigned > 10
    data = rec.to_json()
    assert data["room"] == ROOM and len(data["hands"][0]["signatures"]) == len(data["hands"][0]["actions"])
    # the bytes signed are the documented ones (docs/fairness.md)
    assert move_message("ROOM", 3, 17, "discard 5p") == b"caishen-move-1\nROOM\n3\n17\ndiscard 5p"
    i = _ann_move(rec, 0)
    step = sum(1 for _, a in h.actions[:i] if a.kind is not ActionKind.PASS)
    assert verify_move(key_hex(ANN), data["hands"][0]["signatures"][i],
                       move_message(ROOM, 0, step, h.actions[i][1].text()))


def test_a_move_the_server_signed_in_a_persons_name_fails(rec: MatchRecord) -> None:
    i = _ann_move(rec)
    h = rec.hands[1]
    step = sum(1 for _, a in h.actions[:i] if a.kind is not ActionKind.PASS)
    forged = sign_move(SERVER, move_message(ROOM, 1, step, h.actions[i][1].text()))
    bad = _edited(rec, lambda d: d["hands"][1]["signatures"].__setitem__(i, forged))
    with pytest.raises(VerifyError, match=rf"hand 2 \(hands\[1\]\): actions\[{i}\] .* is not signed by the seat's own key: a move put in "
                                          "the person's name"):
        verify(bad)


def test_a_signature_moved_to_another_move_or_room_fails(rec: MatchRecord) -> None:
    h = rec.hands[1]
    mine = [i for i, (seat, _) in enumerate(h.actions) if h.seats[seat] == 0]
    a, b = mine[2], mine[3]
    swapped = _edited(rec, lambda d: d["hands"][1]["signatures"].__setitem__(a, d["hands"][1]["signatures"][b]))
    with pytest.raises(VerifyError, match=rf"hand 2 \(hands\[1\]\): actions\[{a}\] "):
        verify(swapped)
    with pytest.raises(VerifyError, match=r"hand 1 \(hands\[0\]\): actions\["):
        verify(_edited(rec, lambda d: d.__setitem__("room", "ANOTHERROOM1")))


def test_a_bots_move_with_a_signature_fails_and_a_persons_move_marked_server_is_counted(rec: MatchRecord) -> None:
    h = rec.hands[0]
    bot = next(i for i, (seat, _) in enumerate(h.actions) if h.seats[seat] == 1)
    forged = sign_move(SERVER, b"anything")
    with pytest.raises(VerifyError, match=rf"hand 1 \(hands\[0\]\): actions\[{bot}\] .*by no key"):
        verify(_edited(rec, lambda d: d["hands"][0]["signatures"].__setitem__(bot, forged)))
    # the server saying a stand-in made Ann's move (in the last hand: an earlier one's change
    # breaks the chain): it verifies, and is counted as the server's
    i = _ann_move(rec, 2)
    s = verify(_edited(rec, lambda d: d["hands"][2]["signatures"].__setitem__(i, "server")))
    assert s.by_server == verify(rec).by_server + 1


def test_the_persons_key_replaced_by_the_servers_fails(rec: MatchRecord) -> None:
    ann = rec.hands[2].seats.index(0)
    with pytest.raises(VerifyError, match=r"hand 3 \(hands\[2\]\): actions\["):
        verify(_edited(rec, lambda d: d["hands"][2]["signers"].__setitem__(ann, key_hex(SERVER))))


def test_caishen_verify_reports_the_signed_moves(rec: MatchRecord, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "signed.json"
    path.write_text(rec.dumps(), encoding="utf-8")
    assert cli_main(["verify", str(path)]) == 0
    s = verify(rec)
    assert (f"moves: {s.signed} signed by the person's own key, {s.by_server} by the server (bots, stand-ins), "
            f"{s.unsigned} unsigned") in capsys.readouterr().out


def test_records_without_signatures_still_verify() -> None:
    for path in sorted((Path(__file__).parent / "data" / "records-v1").glob("*.json")):
        assert verify(loads(path.read_text(encoding="utf-8"))).signed == 0


def test_each_answer_in_a_claim_window_is_signed_at_the_step_after_the_move_it_answers() -> None:
    """Every person asked about a discard is shown the same table: their answers have the step
    after the discard, whoever claimed before them; a seat that moves again, or any move that
    is no answer, ends the window (the claimer's discard, a win on a kong's replacement tile).
    Of one window's claims only the one that took effect counts: a chow that lost to a pong was
    never made, and a step for it would tell the table someone had tried to chow. The second
    figure is the count of records signed before 2026-12-07: every move but the passes."""
    hand = [
        (0, "discard 5p"),      # 0: the window opens; the answers have step 1
        (1, "chow 5p 4p"),      # a claim (it loses to the pong)
        (2, "pong 5p"),         # counted 2 in older records
        (3, "pass"),            # counted 3
        (2, "discard 7z"),      # no answer: the discard and the pong before it (2; older 3)
        (3, "pass"),            # answers 7z at 3
        (0, "exposed_kong 7z"),
        (0, "win"),             # the same seat again: a win on the replacement tile, at 4
        (1, "added_kong 3s"),   # (a move of another hand's shape: only the counting matters)
        (2, "pass"),            # answers the added kong at 6
        (1, "discard 1m"),      # the kong's seat again: no answer (6)
    ]
    assert steps(hand) == [(0, 0), (1, 1), (1, 2), (1, 3), (2, 3), (3, 4), (3, 4), (4, 5), (5, 6), (6, 7), (6, 7)]
    # a window answered by passes only counts nothing, a claim alone one step
    assert steps([(0, "discard 1m"), (1, "pass"), (2, "pass"), (1, "discard 2m")]) == [(0, 0), (1, 1), (1, 1), (1, 1)]
    assert steps([(0, "discard 1m"), (2, "pass"), (1, "chow 1m 1m"), (1, "discard 2m")]) == \
        [(0, 0), (1, 1), (1, 1), (2, 2)]


def test_a_record_signed_at_the_windows_steps_verifies_and_a_step_off_fails() -> None:
    """The centre's pages sign an answer at the step after the move it answers (core.public_step);
    ``caishen verify`` checks that step, and an older record's count (the fixture)."""
    new = _signed_match(8, older=False, seed=b"w3")  # (a seed where both happen)
    differ = [i for h in new.hands for i, (a, b) in enumerate(steps([(s, x.text()) for s, x in h.actions]))
              if a != b and h.seats[h.actions[i][0]] == 0 and h.actions[i][1].kind is not ActionKind.DISCARD]
    assert differ, "no answer of Ann's after another claim in its window: another seed"
    # and one of Ann's moves after a window whose claim won over another: the lost claim counts
    # no step (older records counted it)
    after_lost = [i for h in new.hands for i, (a, b) in enumerate(steps([(s, x.text()) for s, x in h.actions]))
                  if a != b and h.seats[h.actions[i][0]] == 0 and h.actions[i][1].kind is ActionKind.DISCARD]
    assert after_lost, "no discard of Ann's after a lost claim: another seed"
    assert verify(new).signed > 0

    def off_by_one(d: dict[str, Any]) -> None:  # Ann's first move whose two counts differ, signed a step on
        h = next(h for h in d["hands"] if any(
            a != b and h["seats"][h["actions"][i][0]] == 0
            for i, (a, b) in enumerate(steps([(s, x) for s, x in h["actions"]]))))
        at = steps([(s, x) for s, x in h["actions"]])
        i = next(i for i, (a, b) in enumerate(at) if a != b and h["seats"][h["actions"][i][0]] == 0)
        h["signatures"][i] = sign_move(ANN, move_message(ROOM, h["index"], at[i][0] + 5, h["actions"][i][1]))

    with pytest.raises(VerifyError, match="is not signed by the seat's own key"):
        verify(_edited(new, off_by_one))


def test_the_opening_kong_round_does_not_end_the_first_discards_window() -> None:
    """Longgang's opening kong round (L9) comes between the hand's first discard and its claim
    window: South's pass in the round, then its chow that lost to West's pong, is one answer of
    the window (the live table asked and took it at step 1; counted on, it failed verification
    and the lost chow counted a step); a kong of the round counts, and the answers after it have
    the step after the kong. (Engine hands: Longgang, Game.from_seed(b"k3491"), b"k11544".)"""
    assert steps([(0, "discard 7s"), (1, "pass"), (3, "pong 7s"), (1, "chow 7s 5s"), (3, "discard 2p")]) == \
        [(0, 0), (1, 1), (1, 1), (1, 2), (2, 3)]
    assert steps([(2, "discard 5s"), (1, "concealed_kong 1m"), (3, "chow 5s 5s"), (0, "pong 5s"),
                  (0, "discard 1s")]) == [(0, 0), (1, 1), (2, 2), (2, 3), (3, 4)]
    # a claimer's own win on its kong's replacement tile still ends the window
    assert steps([(0, "discard 7s"), (1, "pass"), (1, "exposed_kong 7s"), (1, "win")]) == \
        [(0, 0), (1, 1), (1, 1), (2, 2)]


def _told_steps(rules: Any, hands: range) -> list[tuple[list[tuple[int, str]], list[int], int]]:
    """Random hands (answers in a random order) and, for each move, the step the engine's phases
    give it: the moves before it that a player is told of (no pass, no claim that did not take
    effect), and in a claim window the count when the window opened; and the index of the
    hand's first sea-floor move (分张; its length if none)."""
    import random  # noqa: PLC0415

    from caishen.engine.game import Game  # noqa: PLC0415

    out = []
    for i in hands:
        rng = random.Random(i)
        g = Game.from_seed(b"hand %d" % i, rules, dealer=rng.randrange(4))
        rows: list[tuple[int, str, bool, tuple[int, ...]]] = []
        sea = None
        while not g.is_over:
            if sea is None and str(g.phase) == "sea_floor":
                sea = len(rows)
            seats = [s for s in g.to_move() if g.legal_actions(s)]
            seat = seats[rng.randrange(len(seats))]
            legal = g.legal_actions(seat)
            melds = tuple(len(g.melds(s)) for s in range(4))
            window = str(g.phase) in ("claim", "rob")
            g.step(seat, legal[rng.randrange(len(legal))])
            rows.append((seat, g.move_stack[-1][1].text(), window, melds))
        want, count, opened = [], 0, 0
        for k, (seat, text, window, _melds) in enumerate(rows):
            if window and (k == 0 or not rows[k - 1][2]):
                opened = count
                end = next((j for j in range(k, len(rows)) if not rows[j][2]), len(rows))
                after = rows[end][3] if end < len(rows) else tuple(len(g.melds(s)) for s in range(4))
            want.append(opened if window else count)
            word = text.split()[0]
            if word == "pass":
                continue
            if not window:
                count += 1
            elif word == "win":
                count += g.outcome is not None and g.outcome.winner == seat and end == len(rows)
            else:
                count += after[seat] > rows[next(j for j in range(k, -1, -1) if j == 0 or not rows[j - 1][2])][3][seat]
        out.append(([(s, t) for s, t, _, _ in rows], want, len(rows) if sea is None else sea))
    return out


def test_random_hands_sign_at_the_steps_the_engine_tells() -> None:
    """Every move of random Longgang and Luoyang Gangci hands, up to the sea floor (the test
    below), has the step of the moves told before it (movesig.steps reads it from the record
    alone)."""
    from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI  # noqa: PLC0415

    for rules in (LONGGANG, GANGCI):
        for seq, want, sea in _told_steps(rules, range(400)):
            assert [a for a, _ in steps(seq)][:sea] == want[:sea], seq


def test_a_sea_floor_move_after_an_exposed_kong_is_accepted_at_the_step_the_table_asked() -> None:
    """Longgang: West's exposed kong takes the discard; its replacement starts the sea floor
    (分张) and West cannot win on its tile; South, not asked about the discard, wins on its sea
    tile. The live table tells its page the step after the kong (core.public_step: the phase is
    no window) and the page signs at it; the record alone reads the win as an answer to the
    discard, at the window's step, one less, and cannot tell the two apart: a verifier accepts
    either (``movesig.accepted``; the older count is the live one only while no claim of the
    hand has lost). (Hand 9 of _told_steps: seat 1's exposed kong on 1s, seat 3 wins on its sea
    tile: 63 read, 64 live.)"""
    ((seq, want, _),) = _told_steps(LONGGANG, range(9, 10))
    assert seq[-2:] == [(1, "exposed_kong 1s"), (3, "win")]
    assert steps(seq)[-1][0] == want[-1] - 1 and want[-1] in accepted(seq)[-1]
    assert accepted(seq)[-1] != (want[-1] - 1,), "the live step was not accepted"


def test_every_step_a_table_asks_at_is_accepted_by_the_verifiers() -> None:
    """Every move of random Longgang and Luoyang Gangci hands, the sea floor included, is accepted
    at the step the engine's phases give it (the live table's), and a verifier accepts at most
    three steps for a move: its own, the other reading of an answer's word, the older count."""
    from caishen.variants.luoyang_gangci.rules import DEFAULT as GANGCI  # noqa: PLC0415

    for rules in (LONGGANG, GANGCI):
        for seq, want, _ in _told_steps(rules, range(400)):
            for at, ok in zip(want, accepted(seq), strict=True):
                assert at in ok and len(ok) <= 3, (seq, at, ok)
