"""caishen.table.record: versioned records, replay and the provably fair check (issue 4, L4, L12)."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest

import caishen
from caishen import fair
from caishen.engine.actions import (
    ADDED_KONGS,
    CHOWS,
    CONCEALED_KONGS,
    DECLARE_DRAW,
    DISCARDS,
    EXPOSED_KONGS,
    PONGS,
)
from caishen.engine.game import PASS, WIN, ActionKind, Game
from caishen.table.match import Table, selfplay
from caishen.table.play import play
from caishen.table.players import RandomPlayer, player_rng
from caishen.table.record import (
    FORMAT,
    VERSION,
    MatchRecord,
    RecordError,
    ReplayError,
    VerifyError,
    action_text,
    hand_from_game,
    iter_hand,
    loads,
    parse_action,
    replay_hand,
)
from caishen.table.replay import replay, verify
from caishen.tiles import NUM_NON_FLOWER, tile_name
from caishen.variants.longgang.rules import LONGGANG


@pytest.fixture(scope="module")
def records() -> list[MatchRecord]:
    # a few hundred seeded hands of random play, 4, 5 and 6 players
    return [selfplay(LONGGANG, b"record-test-%d" % i, 4 + i % 3) for i in range(20)]


@pytest.fixture(scope="module")
def rec() -> MatchRecord:
    return selfplay(LONGGANG, b"tamper", 4, 4)


def edited(rec: MatchRecord, change: Any) -> MatchRecord:
    data = copy.deepcopy(rec.to_json())
    change(data)
    return MatchRecord.from_json(json.loads(json.dumps(data)))


def test_record_header_and_round_trip(rec: MatchRecord) -> None:
    data = json.loads(rec.dumps())
    assert data["format"] == FORMAT == "caishen-record" and data["version"] == VERSION == 3
    assert list(data) == ["format", "version", "caishen", "variant", "ruleset", "players", "seed", "hands", "result"]
    assert data["caishen"] == caishen.__version__
    assert data["ruleset"]["name"] == "longgang" and data["ruleset"]["bonus_fu"] == [30, 60, 90, 120]
    assert set(data["ruleset"]) == {sw.name for sw in LONGGANG.switches()}
    assert data["players"] == ["random-0", "random-1", "random-2", "random-3"]
    assert data["seed"] == b"tamper".hex()
    h = data["hands"][0]
    assert set(h) == {"index", "dealer", "seats", "commitment", "seed", "dice", "wall", "actions", "draws", "result",
                      "algorithm", "prev", "contributions", "timeline"}
    assert (h["algorithm"], h["prev"], h["timeline"]) == ("caishen-fair-2", "00" * 32, ["commit", "deal", "reveal"])
    assert len(h["wall"].split()) == 136
    assert h["draws"][0] == [0, h["draws"][0][1], h["wall"].split()[h["draws"][0][1]]]
    assert len(h["draws"]) >= 65  # 4 x 16 dealt + the dealer's 17th (L4)
    back = loads(rec.dumps(indent=2))
    assert back == rec and back.to_json() == rec.to_json()


def test_action_text_round_trip() -> None:
    every = [*DISCARDS[:NUM_NON_FLOWER], *PONGS[:34], *EXPOSED_KONGS[:34], *ADDED_KONGS[:34],
             *CONCEALED_KONGS[:34], *CHOWS.values(), WIN, PASS, DECLARE_DRAW]
    for a in every:
        assert parse_action(action_text(a)) is a
    assert action_text(CHOWS[(12, 11)]) == "chow 4p 3p"
    assert action_text(DISCARDS[33]) == "discard 7z"
    assert action_text(CONCEALED_KONGS[0]) == "concealed_kong 1m"
    assert action_text(WIN) == "win" and action_text(PASS) == "pass"
    assert action_text(DECLARE_DRAW) == "declare_draw"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty action"),
        ("fly 5p", "not an action"),
        ("discard 0p", "'0p' is not a tile"),
        ("chow 4p 9p", "not a chow"),
        ("win 5p", "not an action"),
    ],
)
def test_parse_action_errors(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        parse_action(text, "hands[0].actions[3]")


def test_random_play_records_replay_and_verify(records: list[MatchRecord]) -> None:
    hands = 0
    wins = 0
    for r in records:
        again = loads(r.dumps())
        s = replay(again)
        v = verify(again)
        assert s.hands == v.hands == len(r.hands)
        assert s.actions == sum(len(h.actions) for h in r.hands)
        assert v.draws == sum(len(h.draws) for h in r.hands)
        assert s.result == r.result
        hands += len(r.hands)
        wins += sum(h.result["winner"] is not None for h in r.hands)
    assert hands >= 250 and wins >= 20
    # the sample exercises every kind of action (but 叫和局, off by default: see below), and wins
    # in 分张 (L17)
    kinds = {a.kind for r in records for h in r.hands for _, a in h.actions}
    assert kinds == set(ActionKind) - {ActionKind.DECLARE_DRAW}
    assert any("sea_floor" in h.result["flags"] for r in records for h in r.hands)


def test_declared_draw_records_replay_and_verify() -> None:
    """九么九和 on (L17): a hand a seat declared drawn 叫和局 is recorded with who declared and
    why, replays and verifies; under the default rules (switch off) the move is refused."""
    rules = LONGGANG.replace(draw_on_nine_terminals=True)
    r = loads(selfplay(rules, b"declare-35", 4, 8).dumps())
    h = r.hands[0]
    assert h.actions[-1] == (2, DECLARE_DRAW)
    # the first go-round: only discards (and passes on them) before it
    assert {a.kind for _, a in h.actions[:-1]} <= {ActionKind.DISCARD, ActionKind.PASS}
    res = h.result
    assert (res["winner"], res["draw"], res["draw_type"], res["declared_by"]) == (None, "declared", "nine_terminals", 2)
    assert res["chips"] == [0, 0, 0, 0] and res["score"] is None
    assert r.hands[1].seats == (*h.seats[1:], h.seats[0])  # 和局則輪莊: the deal passes (L18)
    assert replay(r).hands == verify(r).hands == 8
    off = edited(r, lambda d: d["ruleset"].update(draw_on_nine_terminals=False))
    with pytest.raises(ReplayError, match="declare_draw"):
        replay(off)


def test_replay_hand_reproduces_outcome(records: list[MatchRecord]) -> None:
    r = records[1]
    for i, h in enumerate(r.hands):
        g = replay_hand(r, i)
        out = g.outcome
        assert out is not None and g.is_over
        assert out.winner == h.result["winner"]
        assert [tile_name(k) for k in g.wall] == [tile_name(k) for k in h.wall]
        assert [(s, p, g.wall[p]) for s, p in g.draws] == list(h.draws)
    with pytest.raises(RecordError, match="no hand 99"):
        replay_hand(r, 99)


def _first_discard(rec: MatchRecord) -> tuple[int, int, int]:
    """(index, seat, a non-flower kind the seat does not hold) at the first discard of hand 0."""
    hand = rec.hands[0]
    for game, step in iter_hand(hand, rec.ruleset):
        nxt = 0 if step is None else step.index + 1
        if nxt < len(hand.actions) and hand.actions[nxt][1].kind is ActionKind.DISCARD:
            seat = hand.actions[nxt][0]
            counts = game.counts(seat)
            missing = next(k for k in range(NUM_NON_FLOWER) if k != 31 and counts[k] == 0)
            return nxt, seat, missing
    raise AssertionError("no discard")


def test_L12_illegal_move_fails_replay_with_index_and_reason(rec: MatchRecord) -> None:
    i, seat, missing = _first_discard(rec)
    bad = edited(rec, lambda d: d["hands"][0]["actions"].__setitem__(i, [seat, f"discard {tile_name(missing)}"]))
    with pytest.raises(ReplayError) as err:
        replay(bad)
    assert err.value.hand == 0 and err.value.index == i and err.value.what == "action"
    assert f"holds no {tile_name(missing)} to discard" in str(err.value)
    assert str(err.value).startswith(f"hand 1 (hands[0].actions[{i}]): seat {seat} discard {tile_name(missing)} is illegal")
    with pytest.raises(ReplayError):
        verify(bad)


def test_wrong_seat_fails_replay(rec: MatchRecord) -> None:
    i, seat, _ = _first_discard(rec)
    other = (seat + 1) % 4
    bad = edited(rec, lambda d: d["hands"][0]["actions"][i].__setitem__(0, other))
    with pytest.raises(ReplayError, match=rf"actions\[{i}\]\): seat {other}.*nothing to decide now"):
        replay(bad)


def test_L4_verify_catches_an_altered_wall(rec: MatchRecord) -> None:
    wall = rec.hands[0].wall
    p, q = 0, next(j for j in range(1, 136) if wall[j] != wall[0])

    def swap(d: dict[str, Any]) -> None:
        tiles = d["hands"][0]["wall"].split()
        tiles[p], tiles[q] = tiles[q], tiles[p]
        d["hands"][0]["wall"] = " ".join(tiles)

    bad = edited(rec, swap)
    with pytest.raises(VerifyError) as err:
        verify(bad)
    e = err.value
    assert (e.hand, e.draw, e.problem) == (0, None, f"wall position {p}")
    assert (e.expected, e.recorded) == (tile_name(wall[p]), tile_name(wall[q]))


def test_L4_verify_catches_a_consistently_rebuilt_wall() -> None:
    # A table that deals from another wall but publishes the real seed: the record replays
    # cleanly (it is self-consistent), only the fairness check can catch it.
    seed = fair.hand_seed(b"cheat", 0)
    wall = list(fair.shuffled_wall(seed, LONGGANG))
    j = next(j for j in range(1, 136) if wall[j] != wall[0])
    wall[0], wall[j] = wall[j], wall[0]
    game = Game(LONGGANG, tuple(wall), fair.dice(seed))
    actions = play(game, [RandomPlayer(player_rng(b"cheat", i)) for i in range(4)])
    table = Table(LONGGANG.replace(hands_per_match=1), 4)
    assert game.outcome is not None
    result = table.settle(game.outcome)
    hand = hand_from_game(0, (0, 1, 2, 3), seed, game, actions, result.to_json())
    record = MatchRecord(LONGGANG.replace(hands_per_match=1), ("a", "b", "c", "d"), None, (hand,),
                         table.result().to_json())
    assert replay(record).hands == 1
    with pytest.raises(VerifyError, match=r"hand 1 \(hands\[0\]\): wall position 0: expected"):
        verify(record)


def test_L4_verify_catches_an_altered_draw(rec: MatchRecord) -> None:
    k = 70  # after the deal
    s, pos, tile = rec.hands[1].draws[k]
    other = next(t for t in ("1m", "9p", "5s") if t != tile_name(tile))
    bad = edited(rec, lambda d: d["hands"][1]["draws"][k].__setitem__(2, other))
    with pytest.raises(VerifyError) as err:
        verify(bad)
    e = err.value
    assert (e.hand, e.draw) == (1, k)
    assert e.expected == f"seat {s} takes {tile_name(tile)} from wall position {pos}"
    assert e.recorded == f"seat {s} takes {other} from wall position {pos}"
    assert str(e).startswith(f"hand 2 (hands[1].draws[{k}]): draw does not match the wall: expected seat {s} takes")
    with pytest.raises(ReplayError) as rerr:
        replay(bad)
    assert (rerr.value.hand, rerr.value.index, rerr.value.what) == (1, k, "draw")


def test_L4_verify_catches_a_draw_from_another_position(rec: MatchRecord) -> None:
    k = 3
    s, pos, tile = rec.hands[0].draws[k]
    bad = edited(rec, lambda d: d["hands"][0]["draws"][k].__setitem__(1, pos + 1))
    with pytest.raises(VerifyError, match=rf"hand 1 \(hands\[0\].draws\[{k}\]\): .*expected seat {s} takes {tile_name(tile)} from wall position {pos}, recorded .*position {pos + 1}"):
        verify(bad)


def test_verify_catches_missing_and_extra_draws(rec: MatchRecord) -> None:
    n = len(rec.hands[2].draws)
    short = edited(rec, lambda d: d["hands"][2]["draws"].pop())
    with pytest.raises(VerifyError) as err:
        verify(short)
    assert (err.value.hand, err.value.draw, err.value.problem) == (2, n - 1, "draw missing from the record")
    longer = edited(rec, lambda d: d["hands"][2]["draws"].append([0, 0, "1m"]))
    with pytest.raises(VerifyError) as err:
        verify(longer)
    assert (err.value.hand, err.value.draw, err.value.problem) == (2, n, "extra draw in the record")


def test_verify_checks_commitment_seed_and_dice(rec: MatchRecord) -> None:
    real = rec.hands[0].commitment
    bad_seed = edited(rec, lambda d: d["hands"][0].__setitem__("seed", "00" * 32))
    with pytest.raises(VerifyError, match=r"hand 1 \(hands\[0\]\): the revealed seed does not match the commitment"):
        verify(bad_seed)
    bad_commit = edited(rec, lambda d: d["hands"][3].__setitem__("commitment", "ab" * 32))
    with pytest.raises(VerifyError) as err:
        verify(bad_commit)
    assert err.value.hand == 3 and err.value.recorded == "ab" * 32
    assert err.value.expected == f"SHA-256(prev + index + seed) {rec.hands[3].commitment}"
    assert real == fair.chained_commitment(fair.hand_seed(b"tamper", 0), fair.NO_PREV, 0)
    dice = list(rec.hands[0].dice)
    dice[0] = dice[0] % 6 + 1
    bad_dice = edited(rec, lambda d: d["hands"][0].__setitem__("dice", dice))
    with pytest.raises(VerifyError, match=r"hand 1 \(hands\[0\]\): dice: expected \["):
        verify(bad_dice)
    hidden = edited(rec, lambda d: d["hands"][0].__setitem__("seed", None))
    with pytest.raises(VerifyError, match=r"hand 1 \(hands\[0\]\): seed not revealed"):
        verify(hidden)
    assert replay(hidden).hands == 4  # replay needs no seed: it uses the recorded wall


def test_replay_catches_altered_results(rec: MatchRecord) -> None:
    real = rec.hands[0].result["chips"]
    fake = [real[0] + 1, real[1] - 1, real[2], real[3]]
    bad = edited(rec, lambda d: d["hands"][0]["result"].__setitem__("chips", fake))
    with pytest.raises(ReplayError) as err:
        replay(bad)
    assert err.value.what == "result" and err.value.hand == 0
    assert str(err.value) == f"hand 1 (hands[0]): chips[0]: replay gives {real[0]}, record says {fake[0]}"
    chips = list(rec.result["chips"])
    bad_match = edited(rec, lambda d: d["result"]["chips"].__setitem__(3, chips[3] + 5))
    with pytest.raises(ReplayError, match=rf"^match: chips\[3\]: replay gives {chips[3]}, record says {chips[3] + 5}$"):
        replay(bad_match)


def test_replay_catches_truncated_and_extended_hands(rec: MatchRecord) -> None:
    n = len(rec.hands[0].actions)
    cut = edited(rec, lambda d: d["hands"][0]["actions"].pop())
    with pytest.raises(ReplayError, match=rf"hand 1 \(hands\[0\]\): the record ends after {n - 1} actions but the hand is not over"):
        replay(cut)
    more = edited(rec, lambda d: d["hands"][0]["actions"].append([0, "pass"]))
    with pytest.raises(ReplayError, match=rf"hand 1 \(hands\[0\].actions\[{n}\]\): the hand is already over"):
        replay(more)


def test_replay_checks_seating(rec: MatchRecord) -> None:
    bad = edited(rec, lambda d: d["hands"][1].__setitem__("seats", [3, 2, 1, 0]))
    with pytest.raises(ReplayError, match=r"hand 2 \(hands\[1\]\): seats should be \[.*\] \(L2, L18\)"):
        replay(bad)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not JSON"),
        ('{"format": "x"}', "not a caishen record"),
        ('{"format": "caishen-record", "version": 4}', "version 4 is not supported"),
        ('{"format": "caishen-record", "version": true}', "version True is not supported"),
        ('{"format": "caishen-record", "version": 2, "variant": "mars"}', "record.variant: unknown variant 'mars'"),
        ('{"format": "caishen-record", "version": 1, "ruleset": {"bogus": 1}}', "unknown switch 'bogus'"),
    ],
)
def test_malformed_records(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        loads(text)


def test_malformed_hand_fields_name_their_place(rec: MatchRecord) -> None:
    with pytest.raises(RecordError, match=r"hands\[0\].actions\[2\]: must be \[seat, action text\]"):
        edited(rec, lambda d: d["hands"][0]["actions"].__setitem__(2, "discard 5p"))
    with pytest.raises(RecordError, match=r"hands\[1\].draws\[0\]: seat must be 0-3, not 7"):
        edited(rec, lambda d: d["hands"][1]["draws"][0].__setitem__(0, 7))
    with pytest.raises(RecordError, match=r"hands\[0\].wall\[5\]: 'xx' is not a tile"):
        edited(rec, lambda d: d["hands"][0].__setitem__("wall", " ".join(["1m"] * 5 + ["xx"])))
    short = edited(rec, lambda d: d["hands"][0].__setitem__("wall", "1m 2m"))
    with pytest.raises(ReplayError, match=r"hand 1 \(hands\[0\]\): cannot deal: a wall must hold 136 tiles, not 2"):
        replay(short)
    assert issubclass(RecordError, ValueError) and issubclass(ReplayError, ValueError)
    assert issubclass(VerifyError, ValueError)


def _state(game: Game) -> tuple[object, ...]:
    return (
        game.phase, game.to_move(), game.live_tiles, tuple(game.draws),
        tuple(game.observation(s) for s in range(4)),
        tuple(game.hand(s) for s in range(4)),
        tuple(game.legal_actions(s) for s in range(4)),
    )


def test_replay_reproduces_every_state() -> None:
    # Play 12 hands recording the full state (every seat's observation, hand and legal
    # actions) after the deal and after every action; the replay must pass through the same.
    for h in range(12):
        seed = fair.hand_seed(b"states", h)
        game = Game(LONGGANG, fair.shuffled_wall(seed, LONGGANG), fair.dice(seed))
        players = [RandomPlayer(player_rng(b"states", 10 * h + i)) for i in range(4)]
        states = [_state(game)]
        actions = []
        while not game.is_over:
            s = next(s for s in game.to_move() if game.legal_actions(s))
            a = players[s].act(game.decision(s))
            game.step(s, a)
            actions.append((s, a))
            states.append(_state(game))
        hand = hand_from_game(h, (0, 1, 2, 3), seed, game, actions, {})
        replayed = [_state(g) for g, _ in iter_hand(hand, LONGGANG)]
        assert len(replayed) == len(states) == len(actions) + 1
        assert replayed == states
        assert game.outcome is not None
        assert replay_hand(
            MatchRecord(LONGGANG, ("a", "b", "c", "d"), None, (hand,), {}), 0
        ).outcome == game.outcome


def test_game_from_record_replays_a_hand(rec: MatchRecord, tmp_path: Any) -> None:
    from caishen.table.record import game_from_record, save

    path = tmp_path / "match.json"
    save(rec, path)
    for i, h in enumerate(rec.hands):
        g = game_from_record(path if i % 2 else rec, i)
        assert g.is_over and g.outcome is not None
        assert g.outcome.winner == h.result["winner"]
    i, seat, missing = _first_discard(rec)
    bad = edited(rec, lambda d: d["hands"][0]["actions"].__setitem__(i, [seat, f"discard {tile_name(missing)}"]))
    with pytest.raises(ReplayError) as err:
        game_from_record(bad, 0)
    assert (err.value.hand, err.value.index) == (0, i)
    assert f"holds no {tile_name(missing)} to discard" in str(err.value)


def test_dumps_puts_each_hand_text_in_place_byte_for_byte():
    """MatchRecord.dumps splices the hands' texts (made once) into the record: the text is
    exactly json.dumps of to_json, names with quotes and the word "hands" included."""
    rec = selfplay(LONGGANG, b"dumps-splice", hands=3)
    rec = dataclasses.replace(rec, players=('a "hands": [] b', "李", "c\\d", "d"))
    text = rec.dumps()
    assert text == json.dumps(rec.to_json(), ensure_ascii=False)
    assert rec.dumps() == text  # again, from the kept hand texts
    assert rec.dumps(indent=2) == json.dumps(rec.to_json(), ensure_ascii=False, indent=2)
    assert rec.hands[0].json_text() == json.dumps(rec.hands[0].to_json(), ensure_ascii=False)
