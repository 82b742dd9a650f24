"""What the table tells beyond the scores: who gave the winning tile of a win on a discard (the
score table names that seat), a room's house rules changed from its variant's defaults (what a
friend who joins sees before taking a seat), and a replay's last frame with every hand shown."""

from __future__ import annotations

import random
from pathlib import Path

from fastapi.testclient import TestClient

from caishen.engine.actions import ActionKind
from caishen.server import core
from caishen.server.app import create_app


def _bots_match(variant: str, hands: int, seed: bytes) -> core.MatchSession:
    ruleset = core.build_ruleset(variant, {}, hands)
    session = core.new_session(ruleset, (None, "greedy", "greedy", "greedy"), seed, ("a", "b", "c", "d"))
    rng = random.Random(seed)
    while not session.over:
        if session.hand_over:
            session.next_hand()
            continue
        seat = session.waiting_for()[0]
        legal = session.legal_actions(seat)
        wins = [a for a in legal if a.kind is ActionKind.WIN]
        session.act(seat, wins[0] if wins else rng.choice(legal))
    return session


def test_a_win_on_a_discard_names_the_seat_that_discarded_it() -> None:
    session = _bots_match("longgang", 8, b"discarder")
    ends = core.result_hands(core.record_text(session))[1]
    on_discard = self_drawn = 0
    for hand, end in zip(session.record().hands, ends, strict=True):
        if end.how == "discard":
            last = [seat for seat, a in hand.actions if a.kind is ActionKind.DISCARD][-1]
            assert end.discarder == last != end.winner
            on_discard += 1
        else:
            assert end.discarder is None
            self_drawn += end.how == "self-draw"
    assert on_discard > 0 and on_discard + self_drawn > 1


def test_the_first_hands_score_table_tells_the_table_fee_so_the_chips_add_up_l25() -> None:
    # L25 (rules.py: "Table fee 头钱 each player pays at the start"): each brings 100 and pays 5
    session = _bots_match("longgang", 8, b"table fee")
    ends = core.result_hands(core.record_text(session))[1]
    assert (ends[0].start_chips, ends[0].fee) == (100, 5)
    assert [line.chips_after for line in ends[0].lines] == [100 - 5 + line.chips for line in ends[0].lines]
    assert all((e.start_chips, e.fee) == (0, 0) for e in ends[1:])


def test_the_hand_someone_went_broke_in_says_who_and_the_chips_lent_to_them_l25_4() -> None:
    # L25.4 (rules.py: "The first player to go broke is topped up (4 players: 50, 5-6: 100)"):
    # lent by the players with most chips, richest first; the score table said "Chips now 50"
    # for a player who had just lost his last chips, and nothing of why (a phone review)
    names = ("a", "b", "c", "d")
    topped = 0
    for seed in (b"broke 1", b"broke 34", b"broke 2", b"broke 3"):
        session = _bots_match("longgang", 16, seed)
        ends = core.result_hands(core.record_text(session))[1]
        chips = [100 - 5] * 4
        before = 0  # players gone broke in the hands before
        for hand, end in zip(session.record().hands, ends, strict=True):
            for s, p in enumerate(hand.seats):
                chips[p] += end.lines[s].chips
            assert end.broke == [names[p] for p in hand.result["broke"]]
            lent = {r.name: r.chips for r in end.rebuys}
            if end.broke and before == 0 and end is not ends[-1]:  # the first, and play goes on: topped up
                assert lent[end.broke[0]] == 50 and sum(lent.values()) == 0
                assert min(lent, key=lambda n: lent[n]) == max(names, key=lambda n: chips[names.index(n)])  # the richest
                topped += 1
            else:  # nobody broke, or the match ends: nothing lent
                assert lent == {}
            before += len(end.broke)
            for n, c in lent.items():
                chips[names.index(n)] += c
            assert [end.lines[s].chips_after for s in range(4)] == [chips[p] for p in hand.seats]
        if topped:
            break
    assert topped == 1


def test_a_room_tells_the_house_rules_changed_from_its_variants_defaults() -> None:
    ruleset = core.build_ruleset("longgang", {"allow_chow": False, "bulldozer_wilds": 4}, 16)
    got = core.changed_rules("longgang", core.ruleset_json(ruleset))
    assert [(r.name, r.rule, r.value) for r in got] == [("allow_chow", "L9", False), ("bulldozer_wilds", "L8", 4)]
    assert got[0].doc_zh == "可以吃上家打出的牌"
    # the match length is shown on its own, never as a changed rule
    assert core.changed_rules("longgang", core.ruleset_json(core.build_ruleset("longgang", {}, 8))) == []
    assert core.changed_rules("luoyang-gangci", core.ruleset_json(core.build_ruleset("luoyang-gangci", {}, 24))) == []


def test_a_replay_from_a_seat_ends_with_every_hand_shown_and_from_above_shows_the_wilds() -> None:
    session = _bots_match("longgang", 8, b"replay")
    text = core.record_text(session)
    frames = core.replay_frames(text, 0, 1, "X")
    assert all(f.view.all_tiles is None for f in frames[:-1])  # the others' tiles stay hidden
    last = frames[-1].view
    assert last.hand_end is not None and last.all_tiles is not None
    assert [len(t) for t in last.all_tiles] == [s.concealed for s in last.seats]
    above = core.replay_frames(text, 0, None, "X")
    assert above[0].view.me is None and above[0].view.wilds  # the indicator's wilds, from above
    every = above[0].view.all_wilds
    assert every is not None and frames[0].view.wilds == every[1]  # seat 1's wilds, as its own view says
    # the centre lists what is wild for every seat; a seat's own flower (坐花, L7) only in its hand
    assert set(above[0].view.wilds) == set.intersection(*map(set, every))
    own = frames[0].view.own_flower
    assert own in every[1]
    if not above[0].view.indicator.startswith("f"):  # under a flower indicator every other flower is wild (L5)
        assert own not in above[0].view.wilds and not any(w.startswith("f") for w in above[0].view.wilds)


def test_each_payments_words_end_in_the_chips_it_paid_also_after_someone_went_broke_l24_7() -> None:
    # L24.7: once a player has gone broke the bonus and the limits are the higher figures; the
    # score table's "how" of every payment must sum to what was paid in every hand of a match
    checked = 0
    for seed in (b"broke 34", b"broke 1"):  # in the first, a win after a player went broke (hand 3)
        session = _bots_match("longgang", 8, seed)
        for end in core.result_hands(core.record_text(session))[1]:
            for t in end.transfers:
                if t.what and t.rule != "L25.3" and " = " in t.what:
                    assert t.what.rsplit("= ", 1)[1] == str(t.chips), (end.index, t)
                    checked += 1
    assert checked >= 20


def _tiles_in_set(text: str) -> int:
    """How many tiles a scored set's notation holds ("44s(3s=4s)": 2, "[555p]": 3)."""
    return sum(ch.isdigit() for ch in text.split("(")[0])


def test_a_hand_of_pairs_names_its_form_on_the_score_table_l14() -> None:
    """L14 八对半: seven pairs and a triplet (RULINGS.md: "7 pairs + 1 triplet, concealed"). The
    score table's sets of such a win are pairs, not the usual sets and a pair: it names the
    form (``HandEndView.form``: "pairs"; the page says 八对半), and only for such a hand."""
    session = _bots_match("longgang", 24, b"pairs 0")  # greedy bots: hand 3 is a win of pairs
    ends = core.result_hands(core.record_text(session))[1]
    forms = []
    for end in ends:
        if end.winner is None or not end.sets:
            continue
        sizes = sorted(_tiles_in_set(s) for s in end.sets)
        pairs = sizes == [2] * 7 + [3]
        assert end.form == ("pairs" if pairs else "standard"), (end.index, end.sets, end.form)
        forms.append(end.form)
    assert forms.count("pairs") >= 1 and forms.count("standard") >= 5
    assert ends[2].form == "pairs"


def test_the_replay_of_the_hand_being_played_says_it_comes_once_the_hand_ends(tmp_path: Path) -> None:
    """A link to the replay of the hand in play was answered "the match has no hand 3" (a new
    player's review): it says the hand is being played; a hand past it has none."""
    app = create_app(f"sqlite:///{tmp_path / 'centre.sqlite3'}")
    with TestClient(app) as c:
        c.post("/api/me", json={"name": "Rui"}).raise_for_status()
        code = c.post("/api/practice").json()["code"]
        assert c.get(f"/api/rooms/{code}").json()["status"] == "playing"
        r = c.get(f"/api/matches/{code}/hands/0/replay")
        assert (r.status_code, r.json()["code"]) == (404, "hand_in_play")
        assert r.json()["detail"] == "hand 1 is being played: its replay comes once it ends"
        r = c.get(f"/api/matches/{code}/hands/5/replay")
        assert (r.status_code, r.json()["code"]) == (404, "no_hand")


def test_a_request_that_needs_a_name_is_refused_with_its_code(tmp_path: Path) -> None:
    """Practice before taking a name: 401 with the code the pages turn into their words (it was
    a bare detail, with no code)."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'centre.sqlite3'}")) as c:
        r = c.post("/api/practice")
        assert (r.status_code, r.json()) == (401, {"detail": "pick a name first (POST /api/me)", "code": "not_signed_in"})
