"""The one place where the terminal client meets the rules core (engine, match, records, bots,
rules, session). Everything else in :mod:`caishen.terminal` imports these names from here, so
a change of the core's module layout is a change of this file only."""

from __future__ import annotations

import random

from caishen.bots import BOTS, check_player, from_observation, make_bot
from caishen.bots.advice import good_discards
from caishen.engine.game import PASS, WIN, Action, ActionKind, IllegalActionError, Observation, Phase
from caishen.errors import CaishenError
from caishen.fair import new_seed, seed_from_text
from caishen.hand import Hand, Meld, MeldKind
from caishen.notation import format_hand
from caishen.shapes.analysis import shanten, waits
from caishen.table.match import MatchError
from caishen.table.players import Player, player_rng
from caishen.table.record import MatchRecord, RecordError, action_text, parse_action
from caishen.table.replay import verify
from caishen.table.session import MatchSession, Move
from caishen.table.signing import load_or_create_key, sign_record
from caishen.tiles import (
    NUM_KINDS,
    NUM_NON_FLOWER,
    SEAT_LETTERS,
    chinese_name,
    glyph,
    is_flower,
    is_honor,
    seat_flower,
    suit_of,
    tile_name,
    wind_of,
)
from caishen.variants import get as get_variant
from caishen.variants import names as variant_names
from caishen.variants import variant_of
from caishen.variants.base import VariantRules
from caishen.variants.longgang.outcome import HandScore
from caishen.variants.longgang.rules import PRESETS, Ruleset, load_ruleset
from caishen.variants.longgang.scoring import Item, ScoreResult
from caishen.variants.luoyang_gangci import GangciRules, GangciWin, Statement

__all__ = [
    "BOTS", "NUM_KINDS", "NUM_NON_FLOWER", "PASS", "PRESETS", "SEAT_LETTERS", "WIN",
    "Action", "ActionKind", "CaishenError", "GangciRules", "GangciWin", "Hand", "HandScore", "IllegalActionError", "Item",
    "MatchError", "MatchRecord", "MatchSession", "Meld", "MeldKind", "Move", "Observation", "Phase",
    "Player", "RecordError", "Ruleset", "ScoreResult", "Statement", "VariantRules", "action_text",
    "check_player", "chinese_name", "good_discards", "format_hand", "get_variant", "glyph", "hint_bot",
    "is_flower", "is_honor", "load_or_create_key", "load_ruleset", "make_seat_bot", "new_seed", "parse_action",
    "seed_from_text", "seat_flower", "sign_record", "shanten", "suit_of", "tile_name", "unseen_counts",
    "variant_names", "variant_of", "verify", "waits", "wind_of",
]


def make_seat_bot(name: str, match_seed: bytes, player: int, ruleset: VariantRules) -> Player:
    """The bot ``name`` for player ``player``, its randomness derived from the match seed."""
    return make_bot(name, player_rng(match_seed, player), ruleset)


def hint_bot(name: str, match_seed: bytes, ruleset: VariantRules) -> Player:
    """The bot that suggests the person's moves (and plays them in ``--demo``): seeded apart
    from the players' bots so that a hint never changes what they do."""
    return make_bot(name, random.Random(b"hint:" + match_seed), ruleset)


def unseen_counts(observation: Observation, ruleset: VariantRules) -> list[int]:
    """Copies of each non-flower kind the seat has not seen (34 counts)."""
    return from_observation(observation, ruleset).unseen()
