"""The one play loop 打牌: players move in a hand until it ends or a person must decide.

:func:`play` serves a match (:mod:`caishen.table.match`), the simulator, the RL environments'
opponents, the game centre and the terminal (:mod:`caishen.table.session`): a seat whose
player is ``None`` is a person, and the loop stops there.
"""

from __future__ import annotations

from collections.abc import Sequence

from caishen.engine.actions import Action
from caishen.engine.game import Game
from caishen.table.players import Player


def play(game: Game, seat_players: Sequence[Player | None]) -> list[tuple[int, Action]]:
    """Let the players (one per seat) move until the hand is over or the next seat to move
    belongs to a person (``None``). Every seat that moves receives only its own observation.
    Returns the moves made, in order (they are also on ``game.move_stack``)."""
    made: list[tuple[int, Action]] = []
    while not game.is_over:
        seat = -1
        for s in game.to_move():
            if game.legal_actions(s):
                seat = s
                break
        player = seat_players[seat]
        if player is None:
            break
        obs = game.observation(seat) if player.observes else game.decision(seat)
        action = player.act(obs)
        game.step(seat, action)
        made.append((seat, action))
    return made
