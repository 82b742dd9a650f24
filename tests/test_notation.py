"""Notation: strict parsing with precise errors, canonical round-trip (issue 2 item 2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from caishen.hand import Hand, Meld, MeldKind
from caishen.notation import (
    NotationError,
    format_hand,
    format_tile,
    format_tiles,
    parse_hand,
    parse_tile,
    parse_tiles,
)
from caishen.tiles import EAST, GREEN, RED, SPRING, SUMMER, WHITE, kind
from caishen.variants.longgang.rules import LONGGANG
from caishen.variants.luoyang_gangci.rules import DEFAULT as LUOYANG_GANGCI


def test_example_from_issue_parses_exactly() -> None:
    h = parse_hand("123m456p11z f2 [777z] (1111s) {5p4p6p}")
    assert h.concealed == (0, 1, 2, 12, 13, 14, EAST, EAST)
    assert h.flowers == (SUMMER,)
    assert h.melds == (
        Meld(MeldKind.PONG, (RED, RED, RED)),
        Meld(MeldKind.CONCEALED_KONG, (18, 18, 18, 18)),
        Meld(MeldKind.CHOW, (13, 12, 14)),
    )
    assert format_hand(h) == "123m456p11z f2 [777z] (1111s) {5p4p6p}"


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("11z f24 123m{546p}<9999m>", "123m11z f24 {5p4p6p} <9999m>"),
        ("321m 9p", "123m9p"),
        ("[7777z] f1 5s", "5s f1 [7777z]"),
        ("f4 f2", "f24"),
        ("{3s1s2s}", "{3s1s2s}"),
    ],
)
def test_canonical_form(text: str, canonical: str) -> None:
    assert format_hand(parse_hand(text)) == canonical
    assert format_hand(parse_hand(canonical)) == canonical


def test_meld_kinds() -> None:
    kinds = [m.kind for m in parse_hand("[111m] [2222m] <3333m> (4444m) {657m}").melds]
    assert kinds == [
        MeldKind.PONG,
        MeldKind.EXPOSED_KONG,
        MeldKind.ADDED_KONG,
        MeldKind.CONCEALED_KONG,
        MeldKind.CHOW,
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123x", "position 3 in '123x': unknown suit 'x' (expected m, p, s, z or f)"),
        ("123", "position 0 in '123': digits '123' have no suit letter"),
        ("11m 45", "position 4 in '11m 45': digits '45' have no suit letter"),
        ("11111m", "position 4 in '11111m': fifth copy of 1m"),
        ("1m [1111m]", "position 7 in '1m [1111m]': fifth copy of 1m"),
        ("5z1m", "position 0 in '5z1m': 5z (白板) is not in the longgang tile set"),
        ("[1f11f]", "position 1 in '[1f11f]': a flower cannot be part of a meld"),
        ("[12m]", "position 0 in '[12m]': [12m] is not a pong or kong (3 or 4 equal tiles)"),
        ("{123z}", "position 0 in '{123z}': {123z} is not a chow (three consecutive tiles of one suit)"),
        ("{135m}", "position 0 in '{135m}': {135m} is not a chow (three consecutive tiles of one suit)"),
        ("123m]", "position 4 in '123m]': a closing bracket without an opening one"),
        ("[111m", "position 5 in '[111m': meld opened with '[' at position 0 is not closed with ']'"),
        ("f5", "position 1 in 'f5': no flower f5 (flowers are f1-f4)"),
        ("12m f2 f2", "position 8 in '12m f2 f2': second copy of flower f2 (each flower exists once)"),
        ("(111m)", "position 0 in '(111m)': (111m) is not a concealed kong (4 equal tiles)"),
        ("<111m>", "position 0 in '<111m>': <111m> is not an added kong (4 equal tiles)"),
        ("0m", "position 0 in '0m': no tile 0m (numbers 1-9)"),
        ("8z", "position 0 in '8z': no tile 8z (numbers 1-7)"),
        ("12m!", "position 3 in '12m!': unexpected '!' (expected a digit)"),
    ],
)
def test_bad_input_names_position_and_problem(text: str, message: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_hand(text, LONGGANG)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_white_allowed_where_ruleset_has_it() -> None:
    assert parse_hand("555z", LUOYANG_GANGCI).concealed == (WHITE,) * 3
    assert parse_hand("555z", None).concealed == (WHITE,) * 3


def test_flowers_refused_without_flowers_in_ruleset() -> None:
    with pytest.raises(NotationError, match="f1 \\(春\\) is not in the luoyang-gangci tile set"):
        parse_hand("11m f1", LUOYANG_GANGCI)


def test_single_tiles() -> None:
    assert parse_tile("5p") == kind(1, 5)
    assert parse_tile("f1") == SPRING
    assert parse_tile(" 7z ") == RED
    assert parse_tiles("123m45p") == (0, 1, 2, 12, 13)
    with pytest.raises(NotationError, match="expected exactly one tile"):
        parse_tile("55p")
    with pytest.raises(NotationError, match="not in the longgang tile set"):
        parse_tile("5z", LONGGANG)


def test_output_formats() -> None:
    h = parse_hand("19m7z f1 [666z]")
    assert format_hand(h, "unicode") == "🀇🀏🀄  🀦  [🀅🀅🀅]"
    assert format_hand(h, "chinese") == "一万 九万 红中  春  [发财 发财 发财]"
    assert format_tile(GREEN, "chinese") == "发财"
    assert format_tile(kind(1, 1), "unicode") == "🀙"
    assert format_tile(kind(2, 9), "unicode") == "🀘"
    with pytest.raises(ValueError, match="unknown style"):
        format_hand(h, "morse")


# Random hands for round-trip: any multiset within the copy limits, with melds.
@st.composite
def hands(draw: st.DrawFn) -> Hand:
    left = [4] * 34
    left[WHITE] = 0
    melds: list[Meld] = []
    for _ in range(draw(st.integers(0, 4))):
        mk = draw(st.sampled_from(list(MeldKind)))
        if mk is MeldKind.CHOW:
            suit = draw(st.integers(0, 2))
            low = suit * 9 + draw(st.integers(0, 6))
            if all(left[k] for k in (low, low + 1, low + 2)):
                for k in (low, low + 1, low + 2):
                    left[k] -= 1
                claimed = low + draw(st.integers(0, 2))
                melds.append(Meld.chow(claimed, low))
        else:
            k = draw(st.integers(0, 33))
            need = 3 if mk is MeldKind.PONG else 4
            if left[k] >= need:
                left[k] -= need
                melds.append(Meld(mk, (k,) * need))
    concealed: list[int] = []
    for _ in range(draw(st.integers(0, 17))):
        k = draw(st.integers(0, 33))
        if left[k]:
            left[k] -= 1
            concealed.append(k)
    flowers = draw(st.sets(st.sampled_from([34, 35, 36, 37])))
    return Hand(tuple(concealed), tuple(melds), tuple(flowers))


@settings(max_examples=500, deadline=None)
@given(hands())
def test_round_trip(hand: Hand) -> None:
    text = format_hand(hand)
    assert parse_hand(text) == hand
    assert format_hand(parse_hand(text)) == text
    assert parse_tiles(format_tiles(hand.concealed)) == hand.concealed


def test_hand_sorts_checks_and_packs_what_it_is_given() -> None:
    """Issue 31: Hand checks and packs in one pass and sorts only when it must; the same value
    whatever the order or container of the tiles given."""
    import random

    from caishen.hand import PACK, Hand

    rng = random.Random(31)
    wall = [k for k in range(34) for _ in range(4)]
    for _ in range(300):
        tiles = rng.sample(wall, rng.randrange(0, 18))
        h = Hand(tuple(tiles), (), ())
        assert h.concealed == tuple(sorted(tiles))
        assert h == Hand(tuple(sorted(tiles)), (), ()) == Hand.trusted(tuple(sorted(tiles)))
        assert h.packed == sum(PACK[k] for k in tiles)
    flowers = Hand((3, 1), (), (36, 34))
    assert flowers.concealed == (1, 3) and flowers.flowers == (34, 36)
    for bad in ((34,), (-1,), (38,)):
        with pytest.raises(ValueError, match="concealed tiles must be non-flower tile kinds"):
            Hand(bad, (), ())
    with pytest.raises(ValueError, match="flowers must be flower kinds"):
        Hand((), (), (3,))
    with pytest.raises(ValueError, match="each flower exists once"):
        Hand((), (), (35, 35))


def test_hand_built_unsorted_is_the_same_value_before_its_tiles_are_read() -> None:
    """Issue 31: tiles that do not come sorted are sorted on the first read of ``concealed``;
    until then the hand compares, hashes, pickles, copies and analyses as the sorted one, and
    ``num_concealed`` counts its tiles without sorting them."""
    import copy
    import pickle
    import random

    from caishen.hand import Hand
    from caishen.shapes.analysis import is_win, shanten
    from caishen.variants.longgang.rules import LONGGANG

    rng = random.Random(3131)
    wall = [k for k in range(34) for _ in range(4)]
    for _ in range(200):
        tiles = rng.sample(wall, 17)
        ref = Hand(tuple(sorted(tiles)), (), ())
        fresh = [Hand(tuple(tiles), (), ()) for _ in range(6)]
        assert fresh[0].num_concealed == 17
        assert is_win(fresh[0], LONGGANG) == is_win(ref, LONGGANG)
        assert fresh[1] == ref and ref == fresh[2]
        assert hash(fresh[3]) == hash(ref)
        assert pickle.loads(pickle.dumps(fresh[4])) == ref and copy.copy(fresh[5]) == ref
        assert repr(Hand(tuple(tiles), (), ())) == repr(ref)
        assert shanten(Hand(tuple(tiles[:16]), (), ()), LONGGANG) == shanten(Hand(tuple(sorted(tiles[:16])), (), ()), LONGGANG)
        h = Hand(tuple(tiles), (), ())
        assert h.concealed == ref.concealed and h.concealed is h.concealed  # sorted once, then kept


def test_hand_with_five_of_a_kind_still_sorts() -> None:
    from caishen.hand import PACK, Hand

    h = Hand((5, 1, 5, 5, 5, 5), (), ())
    assert h.concealed == (1, 5, 5, 5, 5, 5) and h.packed == sum(PACK[k] for k in h.concealed)


@pytest.mark.parametrize("text", ["f5", "f0", " f9"])
def test_parse_tile_names_a_bad_flower_as_written(text: str) -> None:
    with pytest.raises(NotationError) as err:
        parse_tile(text)
    assert str(err.value) == f"position {text.index('f') + 1} in {text!r}: no flower {text.strip()} (flowers are f1-f4)"
    with pytest.raises(NotationError, match=r"no flower f5 \(flowers are f1-f4\)"):
        parse_hand("123m f5")
